/**
 * Model services outlive the manager: after SIGKILL and a restart, the service's session, its model server, its
 * route and the tokens issued before still serve; the scaler watches the route again and keeps the count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BerthClient } from '../../server/client/client';
import { createTestDatabase } from '../helpers/berth';
import { seedEmbeddedDatabase } from '../helpers/embedded-template';
import { freePort, startManagerProcess, stopProcess, type ManagerProcess } from '../helpers/process';
import { send as request, uploadText } from '../helpers/model-folder';

let dataDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
let env: Record<string, string>;
let manager: ManagerProcess | null = null;
let endpoint: string;

const SERVER = `
import http.server, os
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ('route ' + os.environ['BERTH_ROUTE_ID']).encode()
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(('127.0.0.1', int(os.environ['PORT'])), Handler).serve_forever()
`;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'berth-services-survive-'));
  if (process.env.BERTH_TEST_DB === 'postgres') database = await createTestDatabase();
  else seedEmbeddedDatabase(dataDir);
  const [port, appPort] = [await freePort(), await freePort()];
  endpoint = `http://127.0.0.1:${port}`;
  env = { BERTH_DATA_DIR: dataDir, BERTH_ROLES: 'manager,apps', BERTH_MANAGER_PORT: String(port), BERTH_APP_PORT: String(appPort), BERTH_DATABASE_URL: database?.url ?? '' };
});
afterAll(async () => {
  if (manager) {
    const admin = adminClient();
    await admin.call('PUT', '/manager/status', { body: { status: 'frozen', force_kill: true } }).catch(() => undefined);
    admin.close();
    await stopProcess(manager.child);
  }
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

function adminClient(): BerthClient {
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'admin-credentials.json'), 'utf8'));
  return new BerthClient({ endpoint, accessKey: creds.accessKey, secretKey: creds.secretKey });
}

/** Status and body only: what these checks compare. */
const send = (method: string, url: string, headers: Record<string, string> = {}) => request(method, url, headers).then(({ status, body }) => ({ status, body }));

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, deadlineMs = 90_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('a model service across a manager SIGKILL', () => {
  it('keeps serving with the same route and token after the restart', async () => {
    manager = await startManagerProcess(env);
    let admin = adminClient();
    await admin.call('POST', '/folders', { body: { name: 'survivor-model', usage_mode: 'model' } });
    await uploadText(admin, 'survivor-model', 'server.py', SERVER);
    const info = await admin.call('POST', '/services', {
      body: { name: 'survivor', desired_session_count: 1, image: 'python', open_to_public: false, startup_command: '/usr/bin/python3 /home/work/model/server.py', config: { model: 'survivor-model', model_mount_destination: '/home/work/model' } },
    });
    const healthy = await until('a healthy route', async () => {
      const s = await admin.call('GET', `/services/${info.endpoint_id}`);
      return s.active_routes.length === 1 ? s : null;
    });
    const route = healthy.active_routes[0];
    const { token } = await admin.call('POST', `/services/${info.endpoint_id}/token`, { body: { duration: '1h' } });
    const before = await send('GET', `${info.service_endpoint}/x`, { Authorization: `Bearer ${token}` });
    expect(before).toEqual({ status: 200, body: `route ${route.route_id}` });
    admin.close();

    await stopProcess(manager.child, 'SIGKILL');
    manager = await startManagerProcess(env);
    admin = adminClient();

    const after = await until('the endpoint back', async () => {
      const res = await send('GET', `${info.service_endpoint}/x`, { Authorization: `Bearer ${token}` });
      return res.status === 200 ? res : null;
    });
    expect(after.body).toBe(`route ${route.route_id}`);
    const still = await admin.call('GET', `/services/${info.endpoint_id}`);
    expect(still.active_routes).toEqual([route]);
    expect((await admin.call('GET', `/session/${route.session_id}`)).status).toBe('RUNNING');
    expect(await admin.call('GET', `/services/${info.endpoint_id}/errors`)).toEqual({ errors: [], retries: 0 });
    admin.close();
  }, 180_000);
});
