/**
 * A model folder's contents for model-service tests (a tiny Python model server and its definition), and the plain
 * HTTP calls they make: one request with its whole answer, and a one-PATCH tus upload of a small file.
 */
import http from 'node:http';
import type { BerthClient } from '../../server/client/client';

/** Answers /health, turns sick on /sick, and echoes everything else with {answer: 42, path, route, …}. */
export const MODEL_SERVER_PY = `
import http.server, json, os
port = int(os.environ['PORT'])
state = {'sick': False}
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == '/health' and state['sick']:
            self.send_response(500)
            self.send_header('Content-Length', '0')
            self.end_headers()
            return
        if self.path == '/health':
            body = b'ok'
        elif self.path == '/sick':
            state['sick'] = True
            body = b'sick from now on'
        else:
            body = json.dumps({'answer': 42, 'path': self.path, 'route': os.environ.get('BERTH_ROUTE_ID'),
                               'authorization': self.headers.get('Authorization'), 'cookie': self.headers.get('Cookie')}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(('127.0.0.1', port), Handler).serve_forever()
`

/** Starts MODEL_SERVER_PY from /home/work/model and checks /health. */
export const MODEL_DEFINITION = `
models:
  - name: answer
    service:
      start_command: ["/usr/bin/python3", "/home/work/model/server.py"]
      health_check:
        path: /health
        max_retries: 3
        max_wait_time: 2
        expected_status_code: 200
`;

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request; resolves with the status, headers and whole body as text. */
export function send(method: string, url: string, headers: Record<string, string> = {}, body?: Buffer): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: body ? { ...headers, 'Content-Length': String(body.length) } : headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Puts a small file into a folder through request-upload and one tus PATCH; throws unless the upload completes. */
export async function uploadText(client: BerthClient, folder: string, file: string, content: string): Promise<void> {
  const bytes = Buffer.from(content);
  const { token, url } = await client.call('POST', `/folders/${folder}/request-upload`, { body: { path: file, size: bytes.length } });
  const res = await send('PATCH', `${url}?token=${encodeURIComponent(token)}`, { 'Tus-Resumable': '1.0.0', 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '0' }, bytes);
  if (res.status !== 204) throw new Error(`upload of ${file} answered ${res.status}: ${res.body}`);
}
