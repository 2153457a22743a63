/**
 * Every Agent operation that is a conversation with the kernel runner, written once over the kernel channel.
 * A backend extends this and says how to reach a live kernel (`endpoint`); starting, stopping and finding
 * kernels stay the backend's own.
 */
import type { AppStatus, ExecRequest } from '../agent';
import { askRunner, connectRunner } from './connect';
import type { RunnerConnection } from './connection';
import type { KernelEndpoint } from './endpoint';

const APP_OUTPUT_TAIL_BYTES = 4096;

export abstract class RunnerAgent {
  /** The runner of a live kernel; throws when the kernel is not running. */
  protected abstract endpoint(kernelId: string): KernelEndpoint;

  execute(kernelId: string, request: ExecRequest): Promise<RunnerConnection> {
    return connectRunner(this.endpoint(kernelId), { op: 'exec', ...request });
  }

  followBatch(kernelId: string): Promise<RunnerConnection> {
    return connectRunner(this.endpoint(kernelId), { op: 'batch-wait' });
  }

  pty(kernelId: string, rows: number, cols: number): Promise<RunnerConnection> {
    return connectRunner(this.endpoint(kernelId), { op: 'pty', rows, cols });
  }

  async complete(kernelId: string, code: string): Promise<string[]> {
    const answer = await askRunner(this.endpoint(kernelId), { op: 'complete', code }, 'completions');
    return answer.completions as string[];
  }

  async startApp(kernelId: string, app: { name: string; argv: string[]; env: Record<string, string> }): Promise<number> {
    const answer = await askRunner(this.endpoint(kernelId), { op: 'app-start', ...app }, 'app');
    return answer.pid as number;
  }

  async stopApp(kernelId: string, name: string): Promise<boolean> {
    const answer = await askRunner(this.endpoint(kernelId), { op: 'app-stop', name }, 'app-stopped');
    return Boolean(answer.stopped);
  }

  async appStatus(kernelId: string, name: string): Promise<AppStatus | null> {
    const answer = await askRunner(this.endpoint(kernelId), { op: 'apps', tail: APP_OUTPUT_TAIL_BYTES }, 'apps');
    const entry = (answer.apps as Record<string, { alive: boolean; exitCode?: number | null; output?: string }> | undefined)?.[name];
    if (!entry) return null;
    return { alive: entry.alive, exitCode: entry.exitCode ?? null, output: entry.output ?? '' };
  }

  /** Whether the runner answers at all (adoption after a restart, readiness of a remote kernel). */
  static async answers(endpoint: KernelEndpoint, timeoutMs = 2_000): Promise<boolean> {
    try {
      await askRunner(endpoint, { op: 'ping' }, 'pong', timeoutMs);
      return true;
    } catch {
      return false;
    }
  }
}
