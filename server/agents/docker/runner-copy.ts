/**
 * The runner's files for a remote Docker engine: bind mounts name paths on the engine's host, which mounts
 * BERTH_DATA_DIR at the same path (as Slurm nodes do), so the runner, the web terminal and xterm.js are copied once
 * under the data directory, in a folder named after their content (a new Berth version gets a new folder; kernels
 * still running keep theirs).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { xtermFiles } from '../sandbox/xterm';

export interface RunnerFiles {
  runnerPath: string;
  xterm: { host: string; inSandbox: string }[];
}

export function copyRunnerFiles(dataDir: string, runnerPath: string): RunnerFiles {
  const sources = [runnerPath, path.join(path.dirname(runnerPath), 'web_terminal.py'), ...xtermFiles().map((f) => f.host)];
  const hash = createHash('sha256');
  for (const file of sources) hash.update(readFileSync(file));
  const dir = path.join(dataDir, 'runner', hash.digest('hex').slice(0, 16));
  const target = (file: string) => path.join(dir, path.basename(file));
  if (!existsSync(dir)) {
    // Made beside and renamed into place: a half-copied folder is never used.
    const partial = `${dir}.${process.pid}.partial`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true, mode: 0o755 });
    for (const file of sources) copyFileSync(file, path.join(partial, path.basename(file)));
    try {
      renameSync(partial, dir);
    } catch (err) {
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(dir)) throw err;
    }
  }
  return { runnerPath: target(runnerPath), xterm: xtermFiles().map((f) => ({ host: target(f.host), inSandbox: f.inSandbox })) };
}
