// The sandbox spawner (server/agents/local/spawner.py and .ts) with real processes: what it starts, how it reports
// ready and exit, and that it leaves nothing running once idle.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Spawner } from '../../server/agents/local/spawner';
import { isRunning } from '../../server/agents/local/process-tree';

const SCRIPT = path.resolve(__dirname, '../../server/agents/local/spawner.py');
let dir: string;
let spawner: Spawner;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'berth-spawner-'));
  spawner = new Spawner(SCRIPT, 200);
});
afterAll(() => {
  spawner.close();
  rmSync(dir, { recursive: true, force: true });
});

function exitOf(sandbox: { onExit(l: (e: { code: number | null; lost: boolean }) => void): void }) {
  return new Promise<{ code: number | null; lost: boolean }>((resolve) => sandbox.onExit(resolve));
}

async function until(what: string, probe: () => boolean) {
  const deadline = Date.now() + 10_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the sandbox spawner', () => {
  it('starts argv as is, appends its output to the log, and reports ready then the exit code', async () => {
    const log = path.join(dir, 'ok.log');
    const marker = path.join(dir, 'pwned');
    const hostile = `$(touch ${marker}); touch ${marker}`;
    const sandbox = await spawner.start(['/bin/sh', '-c', 'echo "arg=$1"; echo err >&2; echo ready >&3; exec sleep 0.2', 'sh', hostile], log);
    expect(sandbox.pid).toBeGreaterThan(0);
    await sandbox.ready;
    expect(await exitOf(sandbox)).toEqual({ code: 0, lost: false });
    expect(readFileSync(log, 'utf8')).toBe(`arg=${hostile}\nerr\n`);
    expect(existsSync(marker)).toBe(false);
  });

  it('reports a non-zero exit code, and 128 + the signal for a killed sandbox', async () => {
    const failing = await spawner.start(['/bin/sh', '-c', 'exit 7'], path.join(dir, 'fail.log'));
    expect(await exitOf(failing)).toEqual({ code: 7, lost: false });
    const killed = await spawner.start(['/bin/sh', '-c', 'echo ready >&3; exec sleep 30'], path.join(dir, 'kill.log'));
    await killed.ready;
    process.kill(killed.pid, 'SIGKILL');
    expect(await exitOf(killed)).toEqual({ code: 137, lost: false });
  });

  it('rejects ready when the sandbox exits first', async () => {
    const sandbox = await spawner.start(['/bin/sh', '-c', 'exit 3'], path.join(dir, 'early.log'));
    await expect(sandbox.ready).rejects.toThrow('exited while starting');
  });

  it('refuses a log it cannot open, and a program that does not exist exits 127', async () => {
    await expect(spawner.start(['/bin/true'], path.join(dir, 'no-such-dir', 'x.log'))).rejects.toThrow(/No such file/);
    const missing = await spawner.start(['/no/such/program'], path.join(dir, 'missing.log'));
    expect(await exitOf(missing)).toEqual({ code: 127, lost: false });
  });

  it('starts each sandbox in its own session, no signal ignored or blocked, no descriptor but 0–3', async () => {
    const sandbox = await spawner.start(['/bin/sh', '-c', 'echo ready >&3; exec sleep 30'], path.join(dir, 'status.log'));
    try {
      await sandbox.ready;
      const status = readFileSync(`/proc/${sandbox.pid}/status`, 'utf8');
      const stat = readFileSync(`/proc/${sandbox.pid}/stat`, 'utf8');
      const sessionId = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
      expect(sessionId).toBe(sandbox.pid);
      expect(/SigIgn:\s+(\S+)/.exec(status)![1]).toBe('0000000000000000');
      expect(/SigBlk:\s+(\S+)/.exec(status)![1]).toBe('0000000000000000');
      // A program holds descriptors of its own for a moment while it starts (dash a copy of stdout while `echo >&3`
      // runs; a fourth one was also seen just after `sleep` began), so the list is read until it settles: one the
      // spawner passed on never goes.
      const fdsOf = () => readdirSync(`/proc/${sandbox.pid}/fd`).map(Number).sort((a, b) => a - b);
      let fds = fdsOf();
      for (const deadline = Date.now() + 2_000; fds.length > 4 && Date.now() < deadline; fds = fdsOf()) await new Promise((r) => setTimeout(r, 20));
      expect(fds).toEqual([0, 1, 2, 3]);
    } finally {
      // Ended either way: a sandbox left running would keep the spawner from going idle in the next test.
      process.kill(sandbox.pid, 'SIGTERM');
    }
    expect(await exitOf(sandbox)).toEqual({ code: 143, lost: false });
  });

  it('ends once idle, and starts again for the next sandbox', async () => {
    const sandbox = await spawner.start(['/bin/true'], path.join(dir, 'idle.log'));
    const first = spawner.pid!;
    await exitOf(sandbox);
    await until('the idle spawner to end', () => spawner.pid === null && !isRunning(first));
    const again = await spawner.start(['/bin/sh', '-c', 'exit 4'], path.join(dir, 'again.log'));
    expect(spawner.pid).not.toBe(first);
    expect(await exitOf(again)).toEqual({ code: 4, lost: false });
  });

  it('reports its sandboxes lost when it dies, and they run on', async () => {
    const sandbox = await spawner.start(['/bin/sh', '-c', 'echo ready >&3; exec sleep 30'], path.join(dir, 'orphan.log'));
    await sandbox.ready;
    process.kill(spawner.pid!, 'SIGKILL');
    expect(await exitOf(sandbox)).toEqual({ code: null, lost: true });
    expect(isRunning(sandbox.pid)).toBe(true);
    process.kill(sandbox.pid, 'SIGKILL');
  });
});
