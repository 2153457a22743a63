import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FLUSH_EVERY_BYTES, backgroundFlushesStarted, flushBehind } from '../../server/storage/transfers/flush-behind';

const dir = mkdtempSync(path.join(tmpdir(), 'berth-flush-behind-'));
const file = path.join(dir, 'upload');
writeFileSync(file, 'bytes');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Calls `flush(position)` until a flush starts (the one in flight has ended), at most ~5 s. */
async function flushWhenFree(flush: (position: number) => void, position: number): Promise<void> {
  const before = backgroundFlushesStarted();
  for (let i = 0; i < 500 && backgroundFlushesStarted() === before; i++) {
    flush(position);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('flushBehind', () => {
  it('starts a flush each time the position passes the step, and never two at once', async () => {
    const flush = flushBehind(file, 0);
    const before = backgroundFlushesStarted();
    flush(FLUSH_EVERY_BYTES - 1);
    expect(backgroundFlushesStarted()).toBe(before);
    flush(FLUSH_EVERY_BYTES);
    expect(backgroundFlushesStarted()).toBe(before + 1);
    // Another step passed while the first flush is still in flight: not started now.
    flush(2 * FLUSH_EVERY_BYTES);
    expect(backgroundFlushesStarted()).toBe(before + 1);
    await flushWhenFree(flush, 2 * FLUSH_EVERY_BYTES);
    expect(backgroundFlushesStarted()).toBe(before + 2);
    // Counted from the last flush's position: less than a step since then starts none.
    await new Promise((resolve) => setTimeout(resolve, 50));
    flush(3 * FLUSH_EVERY_BYTES - 1);
    expect(backgroundFlushesStarted()).toBe(before + 2);
  });

  it('counts from the step below the starting offset, so small PATCHes of one upload flush too', () => {
    const before = backgroundFlushesStarted();
    const third = flushBehind(file, FLUSH_EVERY_BYTES - (8 << 20));
    third(FLUSH_EVERY_BYTES - 1);
    expect(backgroundFlushesStarted()).toBe(before);
    third(FLUSH_EVERY_BYTES);
    expect(backgroundFlushesStarted()).toBe(before + 1);
  });

  it('leaves a file that is gone to the final fsync without failing', async () => {
    const gone = flushBehind(path.join(dir, 'renamed-away'), 0);
    const before = backgroundFlushesStarted();
    gone(FLUSH_EVERY_BYTES);
    expect(backgroundFlushesStarted()).toBe(before + 1);
    await flushWhenFree(gone, 2 * FLUSH_EVERY_BYTES);
    expect(backgroundFlushesStarted()).toBe(before + 2);
  });
});
