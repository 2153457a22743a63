/**
 * A problem written straight to a socket, for the answers no ServerResponse writes: refused WebSocket upgrades
 * and the HTTP parser's own refusals (./client-error). The answer closes the connection.
 */
import http from 'node:http';
import type { Problem } from './problem';

/** The headers of a problem answer: its own (Retry-After, Allow…), the type and length, never cached. */
export function problemHeaders(problem: Problem, body: string): Record<string, string> {
  return { ...problem.headers, 'Content-Type': 'application/problem+json', 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'no-store' };
}

/** A whole HTTP/1.1 answer; `headers` (the caller's Server, rate limits…) come first, the problem's own win. */
export function rawProblem(problem: Problem, headers: Record<string, string | number> = {}): string {
  const body = JSON.stringify(problem.toJSON());
  const head = Object.entries({ ...headers, ...problemHeaders(problem, body), Connection: 'close' }).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status] ?? ''}\r\n${head}\r\n${body}`;
}
