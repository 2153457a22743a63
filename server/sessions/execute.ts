/**
 * Code execution over HTTP (CONTRACT §8.1): a run keeps its runner connection open between calls and buffers
 * what the kernel prints; each call returns what arrived until the run changes state (waiting for input, a
 * batch step finished, the run finished) or two seconds passed (`continued`). Runs on a session take turns.
 */
import { randomBytes } from 'node:crypto';
import type { App } from '../app';
import type { Session } from '../db/schema';
import { Problem } from '../http/problem';
import type { RunnerConnection, RunnerEvent } from '../agents/channel/connection';
import { holdSession, touchSession } from '../culling/activity';
import { reachKernel } from '../cluster/kernels';

export const FLUSH_MS = 2_000;
/** CONTRACT §17: records a run buffers before its runner is made to wait for the client to collect them. */
export const MAX_BUFFERED_RECORDS = 4096;

export type ConsoleItem = [string, unknown];

export interface ExecResult {
  runId: string;
  status: 'continued' | 'waiting-input' | 'finished' | 'clean-finished' | 'build-finished' | 'exec-timeout';
  exitCode: number | null;
  console: ConsoleItem[];
  options: Record<string, unknown> | null;
  files: unknown[];
}

type Marker = { kind: 'status'; status: ExecResult['status']; exitCode: number | null; options: Record<string, unknown> | null };
type Entry = { kind: 'console'; item: ConsoleItem } | Marker;

class Run {
  readonly entries: Entry[] = [];
  private wake: (() => void) | null = null;
  finished = false;
  /** Set while the run waits for input (the options of its waiting-input), until input is sent. */
  awaitingInput: Record<string, unknown> | null = null;

  constructor(readonly id: string, readonly connection: RunnerConnection) {
    connection.on('event', (event: RunnerEvent) => this.onEvent(event));
    connection.on('close', () => {
      // The kernel went away in the middle of the run.
      if (!this.finished) this.push({ kind: 'status', status: 'finished', exitCode: 130, options: {} });
    });
  }

  private onEvent(event: RunnerEvent): void {
    if (event.t === 'stdout' || event.t === 'stderr') this.push({ kind: 'console', item: [event.t, String(event.d)] });
    else if (event.t === 'waiting-input') {
      this.awaitingInput = { is_password: Boolean(event.password) };
      this.push({ kind: 'status', status: 'waiting-input', exitCode: null, options: this.awaitingInput });
    }
    else if (event.t === 'status') this.push({ kind: 'status', status: event.status, exitCode: Number(event.exitCode), options: null });
    else if (event.t === 'finished') this.push({ kind: 'status', status: 'finished', exitCode: Number(event.exitCode), options: null });
  }

  private push(entry: Entry): void {
    if (this.finished) return;
    this.entries.push(entry);
    if (this.entries.length >= MAX_BUFFERED_RECORDS) this.connection.pause();
    if (entry.kind === 'status' && entry.status === 'finished') {
      // The run is over even if no client collects the rest: let go of the runner so the next run gets its turn.
      this.finished = true;
      this.connection.close();
    }
    this.wake?.();
  }

  /** Waits for a state change or the flush interval, then hands over what arrived. */
  async collect(flushMs: number): Promise<ExecResult> {
    if (this.awaitingInput && !this.entries.some((e) => e.kind === 'status')) {
      // Still waiting for input (a `continue` after waiting-input): say so again rather than `continued`.
      this.entries.push({ kind: 'status', status: 'waiting-input', exitCode: null, options: this.awaitingInput });
    }
    if (this.entries.length < MAX_BUFFERED_RECORDS && !this.entries.some((e) => e.kind === 'status')) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, flushMs);
        // A state change, or a full buffer (the runner waits now): hand over what there is.
        this.wake = () => (this.entries.length >= MAX_BUFFERED_RECORDS || this.entries.some((e) => e.kind === 'status')) && done();
        function done() {
          clearTimeout(timer);
          resolve();
        }
      });
      this.wake = null;
    }
    const stop = this.entries.findIndex((e) => e.kind === 'status');
    const taken = this.entries.splice(0, stop < 0 ? this.entries.length : stop + 1);
    this.connection.resume();
    const marker = taken.find((e): e is Marker => e.kind === 'status');
    return {
      runId: this.id,
      status: marker?.status ?? 'continued',
      exitCode: marker && ['finished', 'clean-finished', 'build-finished'].includes(marker.status) ? marker.exitCode : null,
      console: mergeConsole(taken.filter((e): e is { kind: 'console'; item: ConsoleItem } => e.kind === 'console').map((e) => e.item)),
      options: marker?.options ?? null,
      files: [],
    };
  }
}

/** Consecutive stdout (or stderr) chunks become one item; order is kept. */
export function mergeConsole(items: ConsoleItem[]): ConsoleItem[] {
  const out: ConsoleItem[] = [];
  for (const [kind, data] of items) {
    const last = out[out.length - 1];
    if (last && last[0] === kind && (kind === 'stdout' || kind === 'stderr')) last[1] = String(last[1]) + String(data);
    else out.push([kind, data]);
  }
  return out;
}

interface SessionRuns {
  current: Run | null;
  /** Resolves when the current run has finished: the next run waits on it. */
  turn: Promise<void>;
}

export interface ExecuteRequest {
  mode: 'query' | 'batch' | 'complete' | 'continue' | 'input';
  runId: string | null;
  code: string;
  options: Record<string, unknown>;
}

export class Executions {
  private readonly sessions = new Map<string, SessionRuns>();

  constructor(private readonly app: App, private readonly flushMs = FLUSH_MS) {}

  async execute(session: Session, request: ExecuteRequest): Promise<ExecResult | { status: string; completions: string[] }> {
    const kernel = await mainKernel(this.app, session);
    const agent = this.app.agents.get(kernel.agent_id!)!;
    if (request.mode === 'complete') return { status: 'finished', completions: await agent.complete(kernel.id, request.code) };
    const state = this.sessions.get(session.id) ?? { current: null, turn: Promise.resolve() };
    this.sessions.set(session.id, state);

    if (request.mode === 'continue' || request.mode === 'input') {
      const run = state.current;
      if (!run || run.id !== request.runId) throw new Problem('invalid-api-params', `No run in progress with runId ${request.runId}.`, { runId: 'unknown run' });
      if (request.mode === 'input') {
        run.awaitingInput = null;
        run.connection.send({ op: 'input', text: request.code });
      }
      return this.deliver(session.id, state, run);
    }

    // query or batch: a new run, after the previous one has finished.
    const refusal = request.mode === 'query' ? queryRefusal(kernel) : null;
    if (refusal) throw new Problem('invalid-api-params', refusal, { mode: 'query needs an interpreter' });
    await state.turn;
    if (request.runId && state.current?.id === request.runId && !state.current.finished) return this.deliver(session.id, state, state.current);
    const runId = request.runId ?? randomBytes(8).toString('hex');
    let connection: RunnerConnection;
    try {
      connection = await agent.execute(kernel.id, { mode: request.mode, code: request.code, options: request.options });
    } catch (err) {
      throw new Problem('kernel-execution-failed', err instanceof Error ? err.message : String(err));
    }
    const run = new Run(runId, connection);
    holdSession(session.id, connection);
    let release!: () => void;
    state.turn = new Promise((resolve) => (release = resolve));
    state.current = run;
    connection.once('close', () => release());
    await this.app.db.updateTable('sessions').set((eb) => ({ num_queries: eb('num_queries', '+', 1) })).where('id', '=', session.id).execute();
    return this.deliver(session.id, state, run);
  }

  private async deliver(sessionId: string, state: SessionRuns, run: Run): Promise<ExecResult> {
    const result = await run.collect(this.flushMs);
    if (result.status === 'finished' || result.status === 'exec-timeout') {
      run.connection.close();
      if (state.current === run) state.current = null;
      if (!state.current) this.sessions.delete(sessionId);
    }
    return result;
  }

  /** Interrupts the session's current run, if any (best effort). */
  interrupt(sessionId: string): void {
    this.sessions.get(sessionId)?.current?.connection.send({ op: 'interrupt' });
  }
}

/**
 * Why query-mode code cannot run on this kernel, or null when it can. An `app` image (one without Python, e.g. a
 * bare busybox) has no interpreter: it answers a clear error rather than feeding the code to whatever shell it has.
 * Terminals and batch commands still work there.
 */
export function queryRefusal(kernel: { image_name: string | null; image_runtime: string | null }): string | null {
  if (kernel.image_runtime !== 'app') return null;
  return `The image ${kernel.image_name} has no interpreter for code (no ai.backend.runtime-type python with a runtime-path), so it cannot run queries: use a terminal, or mode "batch" for commands.`;
}

export async function mainKernel(app: App, session: Session) {
  if (!['RUNNING', 'RUNNING_DEGRADED'].includes(session.status)) {
    throw new Problem('invalid-api-params', `The session is ${session.status}, not RUNNING.`, { session: session.status });
  }
  // The session's image comes along (what its runtime allows: queryRefusal), in the same query.
  const kernel = await app.db
    .selectFrom('kernels')
    .leftJoin('images', (join) => join.on('images.id', '=', session.image_id))
    .selectAll('kernels')
    .select(['images.name as image_name', 'images.runtime as image_runtime'])
    .where('kernels.session_id', '=', session.id)
    .where('kernels.cluster_role', '=', 'main')
    .executeTakeFirst();
  // Another replica may have launched it: reachKernel adopts it here first.
  if (!kernel?.agent_id || !(await reachKernel(app, kernel))?.isAlive(kernel.id)) {
    throw new Problem('kernel-execution-failed', 'The session has no running kernel.');
  }
  // Every execution, poll and terminal starts here: it counts as using the session (server/culling/).
  touchSession(session.id);
  return kernel;
}
