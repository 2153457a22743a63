/**
 * Problem answers written outside the request pipeline (which writes its own with the rate-limit headers): through
 * a ServerResponse (the app proxy, the dashboard's path check) or straight to a socket no ServerResponse writes to
 * (refused WebSocket upgrades, the HTTP parser's own refusals in ./client-error), which also closes the connection.
 */
import http from 'node:http';
import type { Problem } from './problem';

/** The headers of a problem answer: its own (Retry-After, Allow…), the type and length, never cached. */
export function problemHeaders(problem: Problem, body: string): Record<string, string> {
  return { ...problem.headers, 'Content-Type': 'application/problem+json', 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'no-store' };
}

/** Answers `problem`; `headers` (the caller's Server…) come first, the problem's own win. An answer already begun is cut. */
export function sendProblem(res: http.ServerResponse, problem: Problem, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(problem.toJSON());
  res.writeHead(problem.status, { ...headers, ...problemHeaders(problem, body) });
  res.end(body);
}

/** A whole HTTP/1.1 answer for a bare socket; `headers` as for sendProblem. */
export function rawProblem(problem: Problem, headers: Record<string, string | number> = {}): string {
  const body = JSON.stringify(problem.toJSON());
  const head = Object.entries({ ...headers, ...problemHeaders(problem, body), Connection: 'close' }).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status] ?? ''}\r\n${head}\r\n${body}`;
}
