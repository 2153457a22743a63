/**
 * Draining a replica for a rolling restart (SIGTERM): its WebSocket clients get close code 1012 ("service
 * restart"), which tells them to reconnect (and a load balancer sends them to another replica); listeners stop
 * accepting and let requests in flight finish within a bound.
 */
import type { WebSocketServer } from 'ws';
import type { App } from '../app';

/** What a drain waits for at most before it cuts the remaining connections. */
export const DRAIN_GRACE_MS = 10_000;
export const SERVICE_RESTART = 1012;

const servers = new WeakMap<App, Set<WebSocketServer>>();

export function trackWebSockets(app: App, wss: WebSocketServer): void {
  let set = servers.get(app);
  if (!set) servers.set(app, (set = new Set()));
  set.add(wss);
}

/** Asks every WebSocket client of this process to reconnect elsewhere. */
export function closeWebSockets(app: App): void {
  for (const wss of servers.get(app) ?? []) {
    for (const ws of wss.clients) ws.close(SERVICE_RESTART, 'service restart');
  }
}
