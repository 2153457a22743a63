// The kernel runner compiled once for the host's interpreter (server/agents/sandbox/runner-bytecode.ts), and the
// sandbox command that runs it instead of the source.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunnerBytecode } from '../../server/agents/sandbox/runner-bytecode';
import { RUNNER_BYTECODE_IN_SANDBOX, RUNNER_IN_SANDBOX, sandboxArgv, type SandboxedKernel } from '../../server/agents/sandbox/sandbox';

const RUNNER = path.resolve(__dirname, '../../server/agents/sandbox/kernel_runner.py');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'berth-runner-bytecode-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the compiled kernel runner', () => {
  it('is compiled on first use for /usr/bin/python3, and runs until ready from the bytecode alone', async () => {
    const bytecode = new RunnerBytecode(RUNNER, path.join(dir, 'runner'));
    expect(bytecode.path()).toBeNull(); // the first caller runs the source while it compiles
    const compiled = await bytecode.ready();
    expect(compiled).toBe(path.join(dir, 'runner', 'kernel_runner.pyc'));
    expect(bytecode.path()).toBe(compiled);
    const magic = execFileSync('/usr/bin/python3', ['-S', '-c', 'import sys, importlib.util; sys.stdout.buffer.write(importlib.util.MAGIC_NUMBER)']);
    expect(readFileSync(compiled!).subarray(0, 4)).toEqual(magic);

    // The runner, started from the bytecode with no source beside it, listens and says ready on fd 3.
    const home = mkdtempSync(path.join(dir, 'home-'));
    const child = spawn('/usr/bin/python3', ['-S', compiled!, path.join(home, 'kernel.sock'), 'python'], {
      env: { ...process.env, HOME: home },
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += String(chunk)));
    try {
      const ready = await new Promise<string>((resolve, reject) => {
        (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk) => resolve(String(chunk)));
        child.once('exit', (code) => reject(new Error(`the runner exited (${code}): ${stderr}`)));
      });
      expect(ready).toBe('ready\n');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('stays on the source when compiling fails, and says why', async () => {
    const errors: Error[] = [];
    const bytecode = new RunnerBytecode(path.join(dir, 'missing.py'), path.join(dir, 'runner-missing'), (err) => errors.push(err));
    expect(await bytecode.ready()).toBeNull();
    expect(bytecode.path()).toBeNull();
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toContain('missing.py');
  });
});

describe('the sandbox command', () => {
  const kernel: SandboxedKernel = { runtime: 'python', hostname: 'main1', environ: {}, mounts: [] };
  const host = { uid: null, scratchDir: '/data/k/work', runDir: '/tmp/berth-run/k', runnerPath: RUNNER, etcFiles: [], cgroupProcs: [] };

  it('binds the bytecode beside the source and runs it when the backend has it', () => {
    const { args } = sandboxArgv(kernel, { ...host, runnerBytecode: '/data/runner/kernel_runner.pyc' });
    const bind = args.indexOf('/data/runner/kernel_runner.pyc');
    expect(args.slice(bind - 1, bind + 2)).toEqual(['--ro-bind', '/data/runner/kernel_runner.pyc', RUNNER_BYTECODE_IN_SANDBOX]);
    expect(args).toContain(RUNNER_IN_SANDBOX); // still bound: tracebacks through the runner name it
    expect(args.slice(-5)).toEqual(['/usr/bin/python3', '-S', RUNNER_BYTECODE_IN_SANDBOX, '/run/berth/kernel.sock', 'python']);
  });

  it('runs the source when there is no bytecode', () => {
    for (const runnerBytecode of [undefined, null]) {
      const { args } = sandboxArgv(kernel, { ...host, runnerBytecode });
      expect(args).not.toContain(RUNNER_BYTECODE_IN_SANDBOX);
      expect(args.slice(-5)).toEqual(['/usr/bin/python3', '-S', RUNNER_IN_SANDBOX, '/run/berth/kernel.sock', 'python']);
    }
  });
});
