/**
 * One operation on a kernel runner (see ../sandbox/kernel_runner.py): JSON lines both ways over one socket (a Unix
 * socket, TLS to a kernel on another node, or a backend's transport; ./connect opens each). Runners outlive the manager, so a restarted
 * manager simply connects again.
 */
import type { Duplex } from 'node:stream';
import { EventEmitter } from 'node:events';

// The fields of an event depend on its `t`; kernel_runner.py is their type and each handler reads the ones of its t.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type RunnerEvent = { t: string; [key: string]: any };

/** One open operation on the runner: send requests, receive events until the runner closes it. */
export class RunnerConnection extends EventEmitter {
  private buffer = '';
  closed = false;

  constructor(private readonly socket: Duplex) {
    super();
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        if (!line) continue;
        try {
          this.emit('event', JSON.parse(line) as RunnerEvent);
        } catch {
          this.emit('event', { t: 'error', msg: 'malformed runner output' });
        }
      }
    });
    socket.on('close', () => {
      this.closed = true;
      this.emit('close');
    });
    socket.on('error', (err) => this.emit('socket-error', err));
  }

  send(message: object): void {
    if (!this.closed) this.socket.write(JSON.stringify(message) + '\n');
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }

  /** Stops reading the runner's events (backpressure: its writes, and so the code printing, block). */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    if (!this.closed) this.socket.resume();
  }

  /** Waits for the first event matching `predicate`; `timeoutMs` may be Infinity. */
  waitFor(predicate: (e: RunnerEvent) => boolean, timeoutMs = 30_000): Promise<RunnerEvent> {
    return new Promise((resolve, reject) => {
      const timer = Number.isFinite(timeoutMs) ? setTimeout(() => done(new Error('kernel runner did not answer in time')), timeoutMs) : undefined;
      const onEvent = (event: RunnerEvent) => predicate(event) && done(null, event);
      const onClose = () => done(new Error('kernel runner closed the connection'));
      const done = (err: Error | null, event?: RunnerEvent) => {
        clearTimeout(timer);
        this.off('event', onEvent);
        this.off('close', onClose);
        if (err) reject(err);
        else resolve(event!);
      };
      this.on('event', onEvent);
      this.on('close', onClose);
    });
  }
}
