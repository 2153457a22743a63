/** Runs `npm start`'s entry (server/main.ts) as a real child process, for restart and crash tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

const MAIN = path.resolve(__dirname, '../../server/main.ts');

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface ManagerProcess {
  child: ChildProcess;
  output: () => string;
}

export async function startManagerProcess(env: Record<string, string>): Promise<ManagerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { env: { ...process.env, BERTH_LOG_LEVEL: 'warn', ...env } });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready:\n${output}`)), 120_000);
    child.stdout!.on('data', () => output.includes('Berth ready:') && (clearTimeout(timer), resolve()));
    child.on('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
  });
  return { child, output: () => output };
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}
