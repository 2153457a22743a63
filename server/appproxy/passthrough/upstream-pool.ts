/**
 * Idle keep-alive connections to app upstreams, by host:port, for the pass-through path. A connection is lent to
 * one client connection at a time and comes back when that client leaves or moves to another upstream. While
 * idle, anything it says or its closing removes it: an idle upstream has nothing to say.
 */
import net from 'node:net';

const MAX_IDLE_PER_TARGET = 64;
const IDLE_MS = 30_000;
/** What ends an idle connection's stay: anything it says (an idle upstream has nothing to say), or its end. */
const IDLE_ENDINGS = ['data', 'end', 'close', 'error', 'timeout'] as const;

export class UpstreamPool {
  private readonly idle = new Map<string, Set<net.Socket>>();
  private readonly unwatch = new Map<net.Socket, () => void>();

  /** An idle connection to host:port, or a new one (connecting; writes wait for it). */
  take(host: string, port: number): net.Socket {
    const set = this.idle.get(`${host}:${port}`);
    if (set) {
      for (const socket of set) {
        this.forget(socket);
        if (!socket.destroyed) return socket;
      }
    }
    const socket = net.connect({ host, port });
    socket.setNoDelay(true);
    return socket;
  }

  /** Keeps an upstream connection that has no request in flight for the next client of host:port. */
  give(host: string, port: number, socket: net.Socket): void {
    const key = `${host}:${port}`;
    let set = this.idle.get(key);
    if (!set) this.idle.set(key, (set = new Set()));
    if (socket.destroyed || set.size >= MAX_IDLE_PER_TARGET) {
      socket.destroy();
      return;
    }
    const drop = () => {
      this.forget(socket);
      socket.destroy();
    };
    for (const event of IDLE_ENDINGS) socket.on(event, drop);
    socket.setTimeout(IDLE_MS);
    set.add(socket);
    this.unwatch.set(socket, () => {
      socket.setTimeout(0);
      for (const event of IDLE_ENDINGS) socket.off(event, drop);
      set.delete(socket);
      if (set.size === 0) this.idle.delete(key);
    });
  }

  closeAll(): void {
    for (const socket of [...this.unwatch.keys()]) {
      this.forget(socket);
      socket.destroy();
    }
  }

  private forget(socket: net.Socket): void {
    this.unwatch.get(socket)?.();
    this.unwatch.delete(socket);
  }
}
