/**
 * Forwards one HTTP request to an app or model server and streams its answer back. This is what http-proxy-3's web
 * passes do with the app proxy's options (X-Forwarded-* appended, a keep-alive agent, no timeout, hop-by-hop
 * headers handled as it does), written out because the library's general path (option merging, per-header
 * setHeader, event emits per request) was a third of the proxy's CPU per request (bench/apps.mjs; ~105 → ~70 µs
 * with the same node:http underneath). WebSockets still go through http-proxy-3 (server.ts).
 */
import http from 'node:http';

function append(headers: Record<string, string | string[] | undefined>, name: string, value: string): void {
  const was = headers[name];
  headers[name] = was ? `${String(was)},${value}` : value;
}

/** The port the client addressed: the Host header's, else HTTP's (the app proxy speaks plain HTTP; TLS ends before it). */
function clientPort(host: string | string[] | undefined): string {
  return /:(\d+)/.exec(String(host ?? ''))?.[1] ?? '80';
}

/**
 * The request headers an upstream gets (the caller has removed Berth's cookies and Authorization already): no
 * Trailer, a zero Content-Length on a bodiless DELETE or OPTIONS, and X-Forwarded-* appended to the client's. Shared
 * with the pass-through path (./passthrough), so both send the same.
 */
export function upstreamHeaders<H extends Record<string, string | string[] | undefined>>(headers: H, method: string, remoteAddress: string | undefined): H {
  delete headers.trailer;
  if ((method === 'DELETE' || method === 'OPTIONS') && !headers['content-length'] && !headers['transfer-encoding']) {
    (headers as Record<string, string>)['content-length'] = '0';
  }
  append(headers, 'x-forwarded-for', remoteAddress ?? '');
  append(headers, 'x-forwarded-port', clientPort(headers.host));
  append(headers, 'x-forwarded-proto', 'http');
  (headers as Record<string, string | string[] | undefined>)['x-forwarded-host'] ||= headers.host ?? '';
  return headers;
}

/**
 * Sends `req` (its headers already cleaned by the caller) to host:port and pipes the answer into `res`. `onError`
 * gets an upstream failure (the caller answers 502); a client that goes away cancels the upstream request.
 */
export function forward(req: http.IncomingMessage, res: http.ServerResponse, target: { host: string; port: number }, agent: http.Agent, onError: (err: Error) => void): void {
  const headers = upstreamHeaders(req.headers, req.method ?? 'GET', req.socket.remoteAddress);
  const upstream = http.request({ host: target.host, port: target.port, method: req.method, path: req.url, headers, agent });
  const failed = (err: Error & { code?: string }) => {
    if (req.socket.destroyed && err.code === 'ECONNRESET') upstream.destroy();
    else onError(err);
  };
  req.on('error', failed);
  upstream.on('error', failed);
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  upstream.on('response', (answer) => {
    const answerHeaders = answer.headers;
    // Hop-by-hop: node:http frames the body to the client itself; the connection header follows the client's.
    delete answerHeaders['transfer-encoding'];
    if (req.httpVersion === '1.0') answerHeaders.connection = req.headers.connection ?? 'close';
    else if (!answerHeaders.connection) answerHeaders.connection = req.headers.connection ?? 'keep-alive';
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders);
    answer.pipe(res);
  });
  req.pipe(upstream);
}
