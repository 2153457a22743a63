/**
 * GET /readyz turns 503 when the database is stopped (issue 14): on PostgreSQL a server of its own is started for
 * this test and stopped under the running manager; on PGlite the embedded database is closed. /healthz stays 200.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startBerth, type Berth } from '../../server/start';
import { BerthClient } from '../../server/client/client';
import { testSettings } from '../helpers/berth';

interface PostgresServer {
  url: string;
  stop(): void;
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
  cleanup = [];
});

it('answers 503 naming the database once the database is stopped', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-ready-'));
  cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  let server: PostgresServer | null = null;
  if (process.env.BERTH_TEST_DB === 'postgres') {
    const { startPostgres } = (await import('../../scripts/postgres.mjs' as string)) as { startPostgres(): Promise<PostgresServer> };
    server = await startPostgres();
  }
  const berth: Berth = await startBerth({ settings: testSettings(dataDir, server?.url), roles: ['manager'] });
  cleanup.push(() => berth.stop());
  const probe = new BerthClient({ endpoint: berth.managerUrl });
  cleanup.push(async () => probe.close());

  expect((await probe.request('GET', '/readyz')).status).toBe(200);
  // The database goes away under the running manager.
  if (server) server.stop();
  else await berth.app.close();
  const res = await probe.request('GET', '/readyz');
  expect(res.status).toBe(503);
  expect(String(res.headers['content-type'])).toContain('application/problem+json');
  const problem = res.json();
  expect(problem.type).toBe('https://errors.berth.dev/service-unavailable');
  expect(problem.detail).toMatch(/^Not ready: database \(/);
  expect(problem.data.checks.database.ok).toBe(false);
  expect(problem.data.checks['listener:manager'].ok).toBe(true);
  expect((await probe.request('GET', '/healthz')).status).toBe(200);
});
