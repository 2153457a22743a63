// The signed API against a bare node:http server on the same machine (issue: foundation, performance).
// Each server runs in its own process; the load generator (autocannon) runs here. Requests are signed once
// (a signature stays valid for 15 minutes) and the server verifies every one in full.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, loadClient, loadGenerator, measure, printTable, startProcess, startServer } from './harness.mjs';
import { startPostgres } from '../scripts/postgres.mjs';
import { buildServer } from '../scripts/build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { signRequest, BerthClient } = await loadClient(root);

const ACCESS_KEY = 'AKBENCH0000000000001';
const SECRET_KEY = 'benchSecretKey00000000000000000000000000';
const duration = Number(process.env.BENCH_SECONDS ?? 5);

async function startBerth(env) {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-bench-'));
  const proc = await startServer(root, {
    BERTH_ROLES: 'manager', BERTH_MANAGER_PORT: String(port), BERTH_DATA_DIR: dataDir,
    BERTH_ADMIN_ACCESS_KEY: ACCESS_KEY, BERTH_ADMIN_SECRET_KEY: SECRET_KEY, BERTH_LOG_LEVEL: 'warn', ...env,
  }, /Berth ready/);
  const url = `http://127.0.0.1:${port}`;
  // The bootstrap keypair is limited to 10,000 requests per 15 minutes; the load needs more.
  const admin = new BerthClient({ endpoint: url, accessKey: ACCESS_KEY, secretKey: SECRET_KEY });
  const answer = await admin.call('POST', '/admin/gql', { body: { query: `mutation { modify_keypair(access_key: "${ACCESS_KEY}", props: {rate_limit: null}) { ok msg } }` } });
  if (!answer.data?.modify_keypair?.ok) throw new Error(`could not lift the rate limit: ${JSON.stringify(answer)}`);
  admin.close();
  return { url, host: `127.0.0.1:${port}`, stop: async () => { await proc.stop(); rmSync(dataDir, { recursive: true, force: true }); } };
}

function signed(host, method, uri, body) {
  return signRequest({ method, uri, host, accessKey: ACCESS_KEY, secretKey: SECRET_KEY, body });
}

await buildServer();
const barePort = await freePort();
const bare = await startProcess([path.join(root, 'bench/bare-server.mjs')], { PORT: String(barePort) });
const baseline = await measure({ url: `http://127.0.0.1:${barePort}/v2`, duration });
await bare.stop();
const rows = [{ name: 'bare node:http, fixed JSON', ...baseline }];

// The protocol's own floor: the bare server plus one HMAC check and the contract's headers.
const floorPort = await freePort();
const floor = await startProcess([path.join(root, 'bench/bare-server.mjs')], { PORT: String(floorPort), BARE_SIGNED: '1' });
const floorHost = `127.0.0.1:${floorPort}`;
const floorRun = await measure({ url: `http://${floorHost}/v2`, headers: signed(floorHost, 'GET', '/v2'), duration });
await floor.stop();
rows.push({ name: 'bare + one HMAC check + contract headers (floor)', ...floorRun, baseline: baseline.rps });

const configBody = JSON.stringify({ key: 'manager/status', prefix: false });
for (const [name, env, pg] of [['PGlite', {}, null], ['PostgreSQL', null, true]]) {
  const db = pg ? await startPostgres() : null;
  const berth = await startBerth(db ? { BERTH_DATABASE_URL: db.url } : env);
  try {
    if (!pg) {
      const v2 = await measure({ url: `${berth.url}/v2`, headers: signed(berth.host, 'GET', '/v2'), duration });
      rows.push({ name: 'signed GET /v2 (full middleware chain)', ...v2, baseline: baseline.rps });
    }
    const cfg = await measure({ url: `${berth.url}/config/get`, method: 'POST', body: configBody, headers: signed(berth.host, 'POST', '/config/get', configBody), duration });
    rows.push({ name: `signed POST /config/get (${name} read)`, ...cfg, baseline: baseline.rps });
  } finally {
    await berth.stop();
    db?.stop();
  }
}
printTable(`Signed API vs bare node:http (${duration}s per case, 16 keep-alive connections, load from ${loadGenerator()})`, rows);
