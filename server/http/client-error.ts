/**
 * node:http's own refusals, made problem+json like every other error: a request head over 16 KiB (431), a chunk
 * extension too long (413), a head that never finished arriving (408), bytes that are not HTTP (400). Without a
 * listener node:http writes a bare status line with no type, which clients cannot tell from a broken proxy.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { Problem } from './problem';
import { rawProblem } from './problem-answer';

function parserProblem(code: string | undefined): Problem {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new Problem('request-header-fields-too-large', 'The request line and headers together must stay under 16 KiB.');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new Problem('payload-too-large', 'A chunk extension of the request body is too long.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new Problem('request-timeout', 'The request did not arrive in time.');
    default:
      return new Problem('generic-bad-request', 'The request is not valid HTTP/1.1.');
  }
}

/** Answers the parser's refusals on `server` as node:http would, but as problem+json; `headers` join each answer. */
export function answerClientErrors(server: http.Server, headers: Record<string, string> = {}): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex & { _httpMessage?: http.ServerResponse }) => {
    // As node:http does: answer only if no answer to this connection has begun, so the peer never reads a torn one.
    // The answer is small enough to leave at once, so destroying right after loses nothing (node:http does the same).
    if (socket.writable && !socket._httpMessage?.headersSent) socket.write(rawProblem(parserProblem(err.code), headers));
    socket.destroy();
  });
}
