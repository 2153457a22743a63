/**
 * The kernel runner compiled once for the sandbox's interpreter (the host's /usr/bin/python3), so a sandbox on
 * this host runs the bytecode instead of compiling kernel_runner.py again on every start (a script, unlike a
 * module, is never cached by Python): 4–10 ms of each session's start, before the runner can say ready.
 *
 * Only for sandboxes that run this host's own /usr (the local backend): bytecode is tied to the interpreter's
 * version, and a cluster node or a container image may have another. Compiled on first use, in a short-lived
 * child; until it is done (or if it fails) sandboxes run the source, as before.
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { RUNNER_IN_SANDBOX, SANDBOX_PYTHON } from './sandbox';

const execFileAsync = promisify(execFile);
// dfile: tracebacks through the runner name the source's path in the sandbox, which is bound there too.
const COMPILE = 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], dfile=sys.argv[3], doraise=True)';

export class RunnerBytecode {
  private compiled: string | null = null;
  private compiling: Promise<void> | null = null;

  /** `runnerPath`: kernel_runner.py; `outDir`: where the bytecode is written (the agent's data directory). */
  constructor(
    private readonly runnerPath: string,
    private readonly outDir: string,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {}

  /** The compiled runner, or null while it is being compiled (the first call starts that) or if that failed. */
  path(): string | null {
    this.compiling ??= this.compile();
    return this.compiled;
  }

  /** Resolves once the first compile has finished, either way (for tests and benches that want the warm path). */
  async ready(): Promise<string | null> {
    this.path();
    await this.compiling;
    return this.compiled;
  }

  private async compile(): Promise<void> {
    const target = path.join(this.outDir, 'kernel_runner.pyc');
    try {
      await mkdir(this.outDir, { recursive: true });
      // py_compile writes to a temporary file and renames it: a replica compiling beside this one is harmless.
      await execFileAsync(SANDBOX_PYTHON, ['-S', '-c', COMPILE, this.runnerPath, target, RUNNER_IN_SANDBOX], { timeout: 30_000 });
      this.compiled = target;
    } catch (err) {
      this.onError(err as Error);
    }
  }
}
