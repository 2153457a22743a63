/**
 * sendFileRange (server/storage/transfers/send-file.ts): a file range sent through two reused buffers, over a real
 * node:http server and client.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendFileRange } from '../../server/storage/transfers/send-file';

let dir: string;
const data = randomBytes(3 * 256 * 1024 + 12_345);

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'berth-send-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Serves one request with `serve`; answers what the sender did and what the client received. */
async function oneRequest(serve: (res: http.ServerResponse) => Promise<void>, client: (res: http.IncomingMessage) => Promise<Buffer>): Promise<{ received: Buffer; sender: Promise<void> }> {
  let sender!: Promise<void>;
  const server = http.createServer((_req, res) => {
    sender = serve(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const received = await new Promise<Buffer>((resolve, reject) => {
      http.get(`http://127.0.0.1:${port}/`, (res) => client(res).then(resolve, reject)).on('error', reject);
    });
    await sender;
    return { received, sender };
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

function readAll(res: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    // A cut connection: what arrived before it.
    res.on('aborted', () => resolve(Buffer.concat(chunks)));
    res.on('error', () => resolve(Buffer.concat(chunks)));
  });
}

async function fileWith(name: string, bytes: Buffer): Promise<{ file: string; handle: FileHandle }> {
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  return { file, handle: await open(file, 'r') };
}

describe('sendFileRange', () => {
  it('sends a range spanning several buffers byte for byte, reports every byte, and closes the file', async () => {
    const { handle } = await fileWith('whole.bin', data);
    const start = 1_000;
    const length = data.length - 2_000;
    const counted: number[] = [];
    const { received } = await oneRequest(async (res) => {
      res.writeHead(200, { 'Content-Length': String(length) });
      await sendFileRange(handle, res, start, length, (n) => counted.push(n));
    }, readAll);
    expect(received.equals(data.subarray(start, start + length))).toBe(true);
    expect(counted.reduce((a, b) => a + b, 0)).toBe(length);
    expect(counted.length).toBeGreaterThan(1);
    expect(handle.fd).toBe(-1);
  });

  it('stops reading when the client goes away midway, and closes the file', async () => {
    // Larger than what loopback's socket buffers take in before the client reads.
    const big = Buffer.concat(Array.from({ length: 64 }, () => data));
    const { handle } = await fileWith('gone.bin', big);
    let sent = 0;
    const { received } = await oneRequest(async (res) => {
      res.writeHead(200, { 'Content-Length': String(big.length) });
      await sendFileRange(handle, res, 0, big.length, (n) => (sent += n));
    }, (res) => new Promise((resolve) => {
      // Take the first chunk, then hang up.
      res.once('data', (c: Buffer) => {
        res.destroy();
        resolve(c);
      });
    }));
    expect(received.length).toBeGreaterThan(0);
    expect(sent).toBeLessThan(big.length);
    expect(handle.fd).toBe(-1);
  });

  it('cuts the connection when the file shrinks while it is sent (Content-Length promised more)', async () => {
    const { file, handle } = await fileWith('shrinks.bin', data);
    const { received } = await oneRequest(async (res) => {
      res.writeHead(200, { 'Content-Length': String(data.length) });
      truncateSync(file, 300 * 1024);
      await sendFileRange(handle, res, 0, data.length, () => undefined);
    }, readAll);
    expect(received.length).toBe(300 * 1024);
    expect(received.equals(data.subarray(0, 300 * 1024))).toBe(true);
    expect(handle.fd).toBe(-1);
  });
});
