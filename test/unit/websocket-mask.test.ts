// ws masks every frame a client sends and unmasks every frame a server receives. Berth depends on bufferutil so that
// this runs natively: in JavaScript it held an scp through `berth app … sshd` to 0.60 of a direct one, natively 1.07
// (bench/ssh.mjs, 28 Nov). ws loads bufferutil from its own place in node_modules, as tested here.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';

const fromWs = createRequire(createRequire(import.meta.url).resolve('ws'));

describe('WebSocket masking', () => {
  it('is native: ws finds bufferutil, and it masks and unmasks as RFC 6455 says', () => {
    const native = fromWs('bufferutil') as {
      mask: (source: Buffer, mask: Buffer, output: Buffer, offset: number, length: number) => void;
      unmask: (buffer: Buffer, mask: Buffer) => void;
    };
    const payload = randomBytes(64 * 1024 + 3);
    const key = randomBytes(4);
    const masked = Buffer.alloc(payload.length);
    native.mask(payload, key, masked, 0, payload.length);
    expect(masked.equals(Buffer.from(payload.map((byte, i) => byte ^ key[i % 4])))).toBe(true);
    native.unmask(masked, key);
    expect(masked.equals(payload)).toBe(true);
  });
});
