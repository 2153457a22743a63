/**
 * A real image registry for the pull tests: Debian's docker-registry (the CNCF distribution registry) on a free
 * loopback port, storing under a temporary directory. Plain HTTP: dockerd trusts registries on 127.0.0.0/8 without
 * TLS. Started by the test file that needs it, stopped with it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/process';
import { waitForPort } from '../../server/apps/ports';

export interface TestRegistry {
  /** host:port, the registry part of an image reference. */
  host: string;
  stop(): Promise<void>;
}

export async function startRegistry(): Promise<TestRegistry> {
  const dir = mkdtempSync(path.join(tmpdir(), 'berth-registry-'));
  const port = await freePort();
  const config = path.join(dir, 'config.yml');
  writeFileSync(config, `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${path.join(dir, 'data')}\nhttp:\n  addr: 127.0.0.1:${port}\n`);
  const child = spawn('/usr/bin/docker-registry', ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForPort('127.0.0.1', port, 20_000, () => child.exitCode === null);
  } catch {
    child.kill('SIGKILL');
    throw new Error(`the test registry did not start:\n${output}`);
  }
  return {
    host: `127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
