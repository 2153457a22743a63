/**
 * Whether an app listens (server/apps/ports.ts), over real sockets: the one-attempt check the app relays make
 * before an upgrade, and the wait after an app starts.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptsConnections, waitForPort } from '../../server/apps/ports';

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

async function listening(port = 0): Promise<number> {
  const server = net.createServer((socket) => socket.destroy());
  servers.push(server);
  await new Promise<void>((ready) => server.listen(port, '127.0.0.1', ready));
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const port = await listening();
  await new Promise((done) => servers.pop()!.close(done));
  return port;
}

describe('acceptsConnections', () => {
  it('is true for a listening port and false for a closed one', async () => {
    expect(await acceptsConnections('127.0.0.1', await listening())).toBe(true);
    expect(await acceptsConnections('127.0.0.1', await closedPort())).toBe(false);
  });

  it('goes through the tunnel when given one, and a tunnel that fails means not listening', async () => {
    const tunneled: number[] = [];
    const port = await listening();
    const tunnel = (p: number) => (tunneled.push(p), Promise.resolve(net.connect(port, '127.0.0.1')));
    expect(await acceptsConnections('10.255.255.1', 2200, tunnel)).toBe(true);
    expect(tunneled).toEqual([2200]);
    expect(await acceptsConnections('10.255.255.1', 2200, () => Promise.reject(new Error('no route')))).toBe(false);
  });
});

describe('waitForPort', () => {
  it('makes one attempt even when the timeout has passed before it starts', async () => {
    // A timeout of 0 is already over when it is checked: the app that does listen must still be found.
    await expect(waitForPort('127.0.0.1', await listening(), 0, () => true)).resolves.toBeUndefined();
    await expect(waitForPort('127.0.0.1', await closedPort(), 0, () => true)).rejects.toThrow(/did not listen/);
  });

  it('waits for a port that starts listening later', async () => {
    const port = await closedPort();
    setTimeout(() => void listening(port), 150);
    await expect(waitForPort('127.0.0.1', port, 10_000, () => true)).resolves.toBeUndefined();
  });

  it('stops waiting when the app has exited', async () => {
    await expect(waitForPort('127.0.0.1', await closedPort(), 10_000, () => false)).rejects.toThrow(/exited before it listened/);
  });
});
