/** Opens a signed Server-Sent Events stream and collects its events (tests of /events/*). */
import http from 'node:http';
import { signRequest } from '../../server/client/sign';
import { buildQuery } from '../../server/client/client';

export interface SseEvent {
  event: string;
  data: any;
}

export interface EventStream {
  status: number;
  contentType: string;
  events: SseEvent[];
  /** Resolves with the first event (already received or coming) that matches. */
  next(match: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  ended: Promise<void>;
  close(): void;
}

export function openEventStream(
  endpoint: string,
  creds: { accessKey: string; secretKey: string },
  path: string,
  query: Record<string, string> = {},
  extraHeaders: Record<string, string> = {},
): Promise<EventStream> {
  const url = new URL(endpoint);
  const uri = path + buildQuery(query);
  const headers = { ...signRequest({ method: 'GET', uri, host: url.host, accessKey: creds.accessKey, secretKey: creds.secretKey }), Host: url.host, ...extraHeaders };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: uri, headers }, (res) => {
      const events: SseEvent[] = [];
      const waiters: { match: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }[] = [];
      let buffer = '';
      let body = '';
      res.setEncoding('utf8');
      let endResolve!: () => void;
      const ended = new Promise<void>((r) => (endResolve = r));
      res.on('data', (chunk: string) => {
        body += chunk;
        buffer += chunk;
        let split: number;
        while ((split = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, split);
          buffer = buffer.slice(split + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!event) continue;
          const parsed = { event, data: data ? JSON.parse(data) : null };
          events.push(parsed);
          for (const w of [...waiters]) if (w.match(parsed)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(parsed);
          }
        }
      });
      res.on('end', endResolve);
      res.on('close', endResolve);
      resolve({
        status: res.statusCode!,
        contentType: String(res.headers['content-type']),
        events,
        get ended() {
          return ended;
        },
        next(match, timeoutMs = 15_000) {
          const found = events.find(match);
          if (found) return Promise.resolve(found);
          return new Promise((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`no matching event; got ${events.map((e) => e.event).join(', ')}; body ${body.slice(0, 300)}`)), timeoutMs);
            waiters.push({ match, resolve: (e) => { clearTimeout(timer); ok(e); } });
          });
        },
        close() {
          req.destroy();
        },
      } as EventStream);
    });
    req.on('error', reject);
    req.end();
  });
}
