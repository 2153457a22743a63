/**
 * What counts as using a session (issue 14): code execution, terminal input, app-proxy and tcpproxy traffic, and a
 * run (a query or a batch command) that is still going. The places where those happen call in here; each call is a
 * map write. Long-lived connections are not watched per chunk: their byte counters are read once per culler pass.
 *
 * Kept per process and keyed by session id (unique across managers); the idle culler (./culler) folds it into
 * sessions.last_activity, so idleness survives a manager restart and replicas see each other's traffic.
 */
import type { IncomingMessage } from 'node:http';

/** A connection whose traffic counts while it is open. */
interface WatchedSocket {
  bytesRead: number;
  bytesWritten: number;
  destroyed: boolean;
  once(event: 'close', listener: () => void): unknown;
}

interface Activity {
  /** The last use seen, epoch ms. */
  last: number;
  /** Runs in progress: the session is in use while any runs. */
  busy: number;
  /** Open connections and their byte count at the last look. */
  sockets: Map<WatchedSocket, number>;
}

const sessions = new Map<string, Activity>();

function entry(sessionId: string): Activity {
  let found = sessions.get(sessionId);
  if (!found) sessions.set(sessionId, (found = { last: 0, busy: 0, sockets: new Map() }));
  return found;
}

/** The session was used just now (code sent, terminal input, a proxied request). */
export function touchSession(sessionId: string): void {
  entry(sessionId).last = Date.now();
}

/** The session is in use until `work` emits `close` (a run's connection to the kernel). */
export function holdSession(sessionId: string, work: { once(event: 'close', listener: () => void): unknown }): void {
  const activity = entry(sessionId);
  activity.busy += 1;
  activity.last = Date.now();
  work.once('close', () => {
    activity.busy -= 1;
    activity.last = Date.now();
  });
}

/** Traffic on this connection counts as use while it stays open (WebSocket relays: tcpproxy, proxied apps). */
export function watchSessionSocket(sessionId: string, socket: WatchedSocket): void {
  const activity = entry(sessionId);
  activity.last = Date.now();
  if (socket.destroyed || activity.sockets.has(socket)) return;
  activity.sockets.set(socket, socket.bytesRead + socket.bytesWritten);
  socket.once('close', () => activity.sockets.delete(socket));
}

/** The app proxy admitted a request to a session's app; an upgraded one keeps counting while its socket lives. */
export function noteAppTraffic(sessionId: string, req: IncomingMessage): void {
  if (req.headers.upgrade) watchSessionSocket(sessionId, req.socket);
  else touchSession(sessionId);
}

/**
 * The last use of each session seen in this process (epoch ms), with runs in progress and connections that moved
 * bytes since the previous call counted as use now. Called once per culler pass: O(sessions seen + open sockets).
 */
export function sampleActivity(now = Date.now()): Map<string, number> {
  const out = new Map<string, number>();
  for (const [id, activity] of sessions) {
    for (const [socket, seen] of activity.sockets) {
      const bytes = socket.bytesRead + socket.bytesWritten;
      if (bytes !== seen) {
        activity.sockets.set(socket, bytes);
        activity.last = now;
      }
    }
    if (activity.busy > 0) activity.last = now;
    out.set(id, activity.last);
  }
  return out;
}

/** The last use seen here of one session (epoch ms), without moving anything; 0 when none was seen. */
export function lastSeenActivity(sessionId: string): number {
  const activity = sessions.get(sessionId);
  if (!activity) return 0;
  return activity.busy > 0 ? Date.now() : activity.last;
}

/** Forgets sessions unused for `ageMs` with nothing in progress (their last use is in the database by then). */
export function forgetQuietSessions(ageMs: number, now = Date.now()): void {
  for (const [id, activity] of sessions) {
    if (activity.busy === 0 && activity.sockets.size === 0 && activity.last < now - ageMs) sessions.delete(id);
  }
}
