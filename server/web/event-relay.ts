/**
 * Server-Sent Events through the dashboard's relay (./manager-relay): a GET that accepts text/event-stream (e.g.
 * /events/session) is streamed line by line instead of buffered, and every event's key fields are removed on the
 * way, so the browser never receives a key.
 */
import type http from 'node:http';
import type { BerthClient } from '../client/client';
import { SECURITY_HEADERS } from './security-headers';

export const EVENT_STREAM = 'text/event-stream';
/** Event payload fields that name a keypair; dropped from every relayed event. */
const KEY_FIELDS = new Set(['ownerAccessKey', 'owner_access_key', 'accessKey', 'access_key']);

/** One `data:` line with the key fields removed from its JSON object; any other line as it is. */
export function redactLine(line: string): string {
  if (!line.startsWith('data:')) return line;
  try {
    const value: unknown = JSON.parse(line.slice(5));
    if (!value || typeof value !== 'object' || Array.isArray(value)) return line;
    const kept = Object.fromEntries(Object.entries(value).filter(([key]) => !KEY_FIELDS.has(key)));
    return `data: ${JSON.stringify(kept)}`;
  } catch {
    return line;
  }
}

/**
 * Streams the manager's event stream at `uri` to `res` until either side goes away. `client` signs with the user's
 * keys on connections of its own, so long-lived streams never take the shared pool's sockets. A refusal
 * (problem+json) is relayed whole, like any other answer. Throws only when the manager cannot be reached.
 */
export async function relayEvents(client: BerthClient, uri: string, headers: Record<string, string>, res: http.ServerResponse): Promise<void> {
  const upstream = await client.open('GET', uri, { headers: { ...headers, accept: EVENT_STREAM } });
  const type = String(upstream.headers['content-type'] ?? '');
  if (upstream.statusCode !== 200 || !type.startsWith(EVENT_STREAM)) {
    res.writeHead(upstream.statusCode ?? 502, { ...SECURITY_HEADERS, 'Content-Type': type || 'application/octet-stream', 'Cache-Control': 'no-store' });
    upstream.pipe(res);
    return;
  }
  res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': EVENT_STREAM, 'Cache-Control': 'no-store, no-transform', 'X-Accel-Buffering': 'no' });
  // A comment first, so the browser sees the stream open now rather than at the manager's first ping.
  res.write(': relayed\n\n');
  let pending = '';
  upstream.setEncoding('utf8');
  upstream.on('data', (chunk: string) => {
    pending += chunk;
    const end = pending.lastIndexOf('\n');
    if (end < 0) return;
    const complete = pending.slice(0, end + 1);
    pending = pending.slice(end + 1);
    res.write(complete.split('\n').map(redactLine).join('\n'));
  });
  upstream.on('end', () => res.end(pending ? redactLine(pending) : undefined));
  // The manager closing the stream abruptly ends the browser's too, which then reconnects.
  upstream.on('error', () => res.destroy());
  // The browser going away closes the response (a request's own 'close' fires once its body is read: not that).
  res.on('close', () => upstream.destroy());
}
