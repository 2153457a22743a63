'use client';
/**
 * Live session events (CONTRACT §10.1) for every sessions page: one EventSource per tab on the relay's
 * /api/manager/events/session, which streams the manager's SSE with owner keys removed. Pages subscribe with
 * useSessionEvents and revalidate what they show; when the stream is down they fall back to polling, told by
 * the `connected` flag. The stream closes shortly after the last subscriber leaves.
 */
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { RELAY_PREFIX } from '@/components/api/useManager';

export interface SessionEvent {
  name: string;
  sessionId: string;
  sessionName: string;
  reason: string;
  exitCode: number | null;
  kernelId?: string;
}

const EVENT_NAMES = [
  'session_enqueued', 'session_scheduled', 'session_preparing', 'session_started', 'session_cancelled',
  'session_terminating', 'session_terminated', 'session_success', 'session_failure',
  'kernel_preparing', 'kernel_pulling', 'kernel_creating', 'kernel_started', 'kernel_cancelled',
  'kernel_terminating', 'kernel_terminated',
];
const RECONNECT_MS = 5_000;
const LINGER_MS = 2_000;

type Listener = (event: SessionEvent) => void;

const listeners = new Set<Listener>();
const connectionWatchers = new Set<() => void>();
let source: EventSource | null = null;
let connected = false;
let reconnectTimer: ReturnType<typeof setTimeout> | null = null;
let lingerTimer: ReturnType<typeof setTimeout> | null = null;

function setConnected(value: boolean): void {
  if (connected === value) return;
  connected = value;
  for (const watcher of connectionWatchers) watcher();
}

function dispatch(name: string, data: string): void {
  let payload: Partial<SessionEvent>;
  try {
    payload = JSON.parse(data) as Partial<SessionEvent>;
  } catch {
    return;
  }
  const event: SessionEvent = {
    name,
    sessionId: String(payload.sessionId ?? ''),
    sessionName: String(payload.sessionName ?? ''),
    reason: String(payload.reason ?? ''),
    exitCode: payload.exitCode ?? null,
    kernelId: payload.kernelId,
  };
  for (const listener of listeners) listener(event);
}

function scheduleReconnect(): void {
  source?.close();
  source = null;
  setConnected(false);
  if (reconnectTimer || listeners.size === 0) return;
  reconnectTimer = setTimeout(() => {
    reconnectTimer = null;
    if (listeners.size > 0) open();
  }, RECONNECT_MS);
}

function open(): void {
  if (source) return;
  const stream = new EventSource(`${RELAY_PREFIX}/events/session?scope=*`);
  source = stream;
  stream.onopen = () => setConnected(true);
  // The browser retries a dropped stream by itself; a refused or closed one is retried here, after a pause.
  stream.onerror = () => {
    if (stream.readyState === EventSource.CLOSED) scheduleReconnect();
    else setConnected(false);
  };
  for (const name of EVENT_NAMES) stream.addEventListener(name, (e) => dispatch(name, (e as MessageEvent<string>).data));
  stream.addEventListener('server_close', scheduleReconnect);
}

function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  if (lingerTimer) {
    clearTimeout(lingerTimer);
    lingerTimer = null;
  }
  open();
  return () => {
    listeners.delete(listener);
    if (listeners.size > 0 || lingerTimer) return;
    lingerTimer = setTimeout(() => {
      lingerTimer = null;
      if (listeners.size > 0) return;
      source?.close();
      source = null;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = null;
      setConnected(false);
    }, LINGER_MS);
  };
}

function watchConnection(watcher: () => void): () => void {
  connectionWatchers.add(watcher);
  return () => connectionWatchers.delete(watcher);
}

/**
 * Calls `onEvent` for every session event the user may see; answers whether the stream is up. The handler may
 * change between renders without reopening anything.
 */
export function useSessionEvents(onEvent: Listener): boolean {
  const handler = useRef(onEvent);
  useEffect(() => {
    handler.current = onEvent;
  });
  useEffect(() => subscribe((event) => handler.current(event)), []);
  return useSyncExternalStore(watchConnection, () => connected, () => false);
}
