/** withGcHeadroom (server/util/gc-headroom.ts): shared by concurrent transfers, always released. */
import { describe, expect, it } from 'vitest';
import { gcHeadroomHolders, withGcHeadroom } from '../../server/util/gc-headroom';

describe('withGcHeadroom', () => {
  it('is held while a transfer runs, shared by concurrent ones, and released when the last ends', async () => {
    let releaseFirst!: () => void;
    const first = withGcHeadroom(() => new Promise<string>((r) => (releaseFirst = () => r('first'))));
    expect(gcHeadroomHolders()).toBe(1);
    const second = withGcHeadroom(async () => {
      expect(gcHeadroomHolders()).toBe(2);
      return 'second';
    });
    expect(await second).toBe('second');
    expect(gcHeadroomHolders()).toBe(1);
    releaseFirst();
    expect(await first).toBe('first');
    expect(gcHeadroomHolders()).toBe(0);
  });

  it('is released when the transfer fails, and the failure passes through', async () => {
    await expect(withGcHeadroom(async () => {
      throw new Error('disk full');
    })).rejects.toThrow('disk full');
    expect(gcHeadroomHolders()).toBe(0);
  });
});
