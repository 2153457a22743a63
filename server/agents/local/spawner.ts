/**
 * The manager's side of ./spawner.py: sandboxes are forked by that small process rather than by the manager, whose
 * fork (a copy of hundreds of MB of page tables) held the event loop for 5–10 ms on every session start.
 *
 * The spawner starts with the first sandbox and ends once no sandbox of its own has run for `idleMs`, so an idle
 * manager keeps no helper process. If it dies while sandboxes run, their handles report `lost`: the agent then
 * watches those pids itself, as it does for sandboxes adopted after a restart.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

const PYTHON = '/usr/bin/python3';

export interface SandboxProcess {
  pid: number;
  /** Resolves when the sandbox writes "ready" to its fd 3; rejects if it exits first. */
  ready: Promise<void>;
  /** Called once: with the exit code (128 + signal when killed), or `lost` when nothing can say any more. */
  onExit(listener: (exit: { code: number | null; lost: boolean }) => void): void;
}

interface Entry {
  started: (pid: number) => void;
  failed: (err: Error) => void;
  ready: () => void;
  notReady: (err: Error) => void;
  exited: (exit: { code: number | null; lost: boolean }) => void;
}

interface Message {
  id: string;
  pid?: number;
  error?: string;
  ready?: boolean;
  exit?: boolean;
  code?: number | null;
  signal?: number | null;
}

export class Spawner {
  private process: ChildProcessWithoutNullStreams | null = null;
  private readonly entries = new Map<string, Entry>();
  private idleTimer: NodeJS.Timeout | null = null;
  /** Names each start in the messages (a kernel's id may start again, on a restart, before its old exit is read). */
  private started = 0;

  /** `script`: where spawner.py is (beside this module in the source tree). */
  constructor(
    private readonly script: string,
    private readonly idleMs = 30_000,
  ) {}

  /** The spawner's own pid while it runs (it runs only while it has sandboxes, and idleMs after). */
  get pid(): number | null {
    return this.process?.pid ?? null;
  }

  /** Starts `argv` (never through a shell) with stdout and stderr appended to `logPath`. */
  start(argv: string[], logPath: string): Promise<SandboxProcess> {
    const id = String(++this.started);
    const spawner = this.running();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    return new Promise((resolve, reject) => {
      let exitListener: ((exit: { code: number | null; lost: boolean }) => void) | null = null;
      let exitSeen: { code: number | null; lost: boolean } | null = null;
      let readyResolve!: () => void;
      let readyReject!: (err: Error) => void;
      const ready = new Promise<void>((res, rej) => {
        readyResolve = res;
        readyReject = rej;
      });
      ready.catch(() => undefined); // the caller awaits it; an unawaited rejection must not crash the process
      this.entries.set(id, {
        started: (pid) => resolve({ pid, ready, onExit: (listener) => (exitSeen ? listener(exitSeen) : (exitListener = listener)) }),
        failed: (err) => {
          this.forget(id);
          reject(err);
        },
        ready: readyResolve,
        notReady: readyReject,
        exited: (exit) => {
          this.forget(id);
          readyReject(new Error('the kernel exited while starting'));
          exitSeen = exit;
          exitListener?.(exit);
        },
      });
      spawner.stdin.write(JSON.stringify({ id, argv, log: logPath }) + '\n');
    });
  }

  /** Stops listening (the manager is closing): the sandboxes keep running, the spawner ends with its stdin. */
  close(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.entries.clear();
    this.process?.removeAllListeners('exit');
    this.process?.stdin.end();
    this.process = null;
  }

  private running(): ChildProcessWithoutNullStreams {
    if (this.process) return this.process;
    const child = spawn(PYTHON, ['-S', '-u', this.script], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.on('error', () => undefined); // a dead spawner is handled on 'exit'
    child.stderr.on('data', (chunk: Buffer) => process.stderr.write(`[spawner] ${chunk}`));
    createInterface({ input: child.stdout }).on('line', (line) => this.handle(JSON.parse(line) as Message));
    child.once('exit', () => {
      if (this.process === child) this.process = null;
      // Whatever it started runs on without anyone to report on it.
      for (const [id, entry] of [...this.entries]) {
        entry.failed(new Error('the sandbox spawner ended'));
        entry.exited({ code: null, lost: true });
        this.entries.delete(id);
      }
    });
    child.unref();
    (child.stdout as unknown as { unref?: () => void }).unref?.();
    (child.stderr as unknown as { unref?: () => void }).unref?.();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    this.process = child;
    return child;
  }

  private handle(message: Message): void {
    const entry = this.entries.get(message.id);
    if (!entry) return;
    if (message.error !== undefined) entry.failed(new Error(message.error));
    else if (message.pid !== undefined) entry.started(message.pid);
    else if (message.ready) entry.ready();
    else if (message.exit) entry.exited({ code: message.code ?? (message.signal ? 128 + message.signal : null), lost: false });
  }

  private forget(id: string): void {
    this.entries.delete(id);
    if (this.entries.size || !this.process || this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (!this.entries.size && this.process) {
        this.process.removeAllListeners('exit');
        this.process.stdin.end();
        this.process = null;
      }
    }, this.idleMs);
    this.idleTimer.unref();
  }
}
