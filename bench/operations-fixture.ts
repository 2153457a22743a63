/**
 * In-process fixture of bench/operations.mjs (bundled by esbuild like the signing client): a manager on PGlite or
 * PostgreSQL whose database is seeded with session records, kernels and agents by set-based SQL, then the two
 * measurements that need it: the /metrics scrape and one idle-culler pass.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { App } from '../server/app';
import { readSettings } from '../server/config/env';
import { startBerth } from '../server/start';
import { touchSession } from '../server/culling/activity';
import { IdleCuller, type PassResult } from '../server/culling/culler';

const TOKEN = 'bench-metrics-token';

export interface Fixture {
  app: App;
  scrape(): Promise<{ ms: number; bytes: number }>;
  idlePass(touch: number): Promise<{ cpuMs: number; wallMs: number; result: PassResult }>;
  stop(): Promise<void>;
}

export async function startFixture(options: { databaseUrl?: string; sessions: number; running: number; agents: number }): Promise<Fixture> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-ops-bench-'));
  const settings = {
    ...readSettings({} as NodeJS.ProcessEnv),
    dataDir,
    databaseUrl: options.databaseUrl,
    managerPort: 0,
    logLevel: 'silent',
    metricsToken: TOKEN,
    // Passes are run by the bench, not by the timer.
    idleCheckIntervalMs: 3_600_000,
  };
  const berth = await startBerth({ settings, roles: ['manager'], inMemory: !options.databaseUrl });
  const { app } = berth;
  const localAgent = [...app.agents.keys()][0];
  const admin = await app.db.selectFrom('keypairs as k').innerJoin('users as u', 'u.uuid', 'k.user_id').select(['k.access_key', 'u.uuid', 'u.domain_name']).where('u.role', '=', 'superadmin').executeTakeFirstOrThrow();
  const group = await app.db.selectFrom('groups').select('id').where('name', '=', 'default').executeTakeFirstOrThrow();
  const image = await app.db.selectFrom('images').select(['id', 'name']).executeTakeFirstOrThrow();
  // A policy with a limit (so every running session is checked) that no session reaches during the bench.
  await app.db.insertInto('keypair_resource_policies').values({ name: 'bench-idle', total_resource_slots: '{}', allowed_vfolder_hosts: '{}', idle_timeout: 86_400, max_session_lifetime: 0 }).execute();
  await app.db.updateTable('keypairs').set({ resource_policy: 'bench-idle' }).where('access_key', '=', admin.access_key).execute();
  await sql`
    insert into agents (id, status, scaling_group, available_slots, occupied_slots)
    select 'i-bench-' || i, case when i % 10 = 0 then 'LOST' else 'ALIVE' end, 'default',
           '{"cpu": "64", "mem": "274877906944", "cuda.device": "8"}', '{"cpu": "12", "mem": "68719476736", "cuda.device": "2"}'
    from generate_series(1, ${options.agents}) as i
  `.execute(app.db);
  await sql`
    insert into sessions (id, name, access_key, user_uuid, domain_name, group_id, scaling_group_name, image_id, image, status, status_history, created_at)
    select gen_random_uuid(), 'bench-' || i, ${admin.access_key}, ${admin.uuid}::uuid, ${admin.domain_name}, ${group.id}::uuid, 'default', ${image.id}::uuid, ${image.name},
           case when i <= ${options.running} then 'RUNNING' when i % 7 = 0 then 'ERROR' else 'TERMINATED' end,
           jsonb_build_object('RUNNING', now()::text), now() - (i || ' seconds')::interval
    from generate_series(1, ${options.sessions}) as i
  `.execute(app.db);
  await sql`
    insert into kernels (id, session_id, agent_id, status)
    select gen_random_uuid(), s.id,
           case when s.status = 'RUNNING' then ${localAgent} else 'i-bench-' || (1 + abs(hashtext(s.name)) % ${options.agents}) end,
           s.status
    from sessions s where s.name like 'bench-%'
  `.execute(app.db);
  const running = (await app.db.selectFrom('sessions').select('id').where('status', '=', 'RUNNING').execute()).map((r) => r.id);
  // A culler of its own, driven by the bench (the manager's runs on its timer, here once an hour).
  const culler = new IdleCuller(app, 3_600_000);

  return {
    app,
    async scrape() {
      const started = performance.now();
      const res = await fetch(`${berth.managerUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`scrape answered ${res.status}: ${text}`);
      return { ms: performance.now() - started, bytes: text.length };
    },
    async idlePass(touch: number) {
      for (let i = 0; i < touch; i++) touchSession(running[Math.floor(Math.random() * running.length)]);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const result = await culler.pass();
      const used = process.cpuUsage(cpu);
      return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started, result };
    },
    async stop() {
      await berth.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
