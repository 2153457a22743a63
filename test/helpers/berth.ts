/**
 * Starts a real manager for one test file: in-memory PGlite, or a fresh database on the PostgreSQL server the
 * test command started (BERTH_TEST_DB=postgres). Hands out signed clients for each kind of caller.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { readSettings, type BerthSettings } from '../../server/config/env';
import { startBerth, type Berth, type Role } from '../../server/start';
import { BerthClient } from '../../server/client/client';
import { createUser } from '../../server/accounts/create-user';
import { json } from '../../server/db';
import { terminateAllSessions } from '../../server/manager/sessions';
import { stopServiceScaler } from '../../server/services/scaler';
import type { UserRole } from '../../server/auth/principal';
import { embeddedTemplate } from './embedded-template';

export const ADMIN_PASSWORD = 'admin-password-123';

export interface TestUser {
  uuid: string;
  email: string;
  password: string;
  accessKey: string;
  secretKey: string;
  client: BerthClient;
}

export interface TestBerth {
  berth: Berth;
  app: Berth['app'];
  url: string;
  admin: BerthClient;
  adminCreds: { email: string; accessKey: string; secretKey: string };
  /** An unsigned client. */
  anonymous: BerthClient;
  createUser(options?: { role?: UserRole; isAdmin?: boolean; domain?: string; rateLimit?: number | null; password?: string }): Promise<TestUser>;
  createDomain(name: string): Promise<void>;
  stop(): Promise<void>;
}

export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.BERTH_TEST_PG_URL!;
  const name = `berth_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** Settings for a test manager: ephemeral ports, the test admin password, no logs. */
export function testSettings(dataDir: string, databaseUrl: string | undefined, overrides: Partial<BerthSettings> = {}): BerthSettings {
  return {
    ...readSettings({} as NodeJS.ProcessEnv),
    dataDir,
    databaseUrl,
    managerPort: 0,
    webPort: 0,
    appPort: 0,
    adminPassword: ADMIN_PASSWORD,
    logLevel: 'silent',
    ...overrides,
  };
}

export async function startTestBerth(overrides: Partial<BerthSettings> = {}, options: { roles?: Role[] } = {}): Promise<TestBerth> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-test-'));
  const database = process.env.BERTH_TEST_DB === 'postgres' ? await createTestDatabase() : null;
  const settings = testSettings(dataDir, database?.url, overrides);
  const berth = await startBerth({ settings, roles: options.roles ?? ['manager'], inMemory: !database, embeddedTemplate: database ? undefined : embeddedTemplate() });
  const creds = berth.bootstrap.credentials!;
  const admin = new BerthClient({ endpoint: berth.managerUrl, accessKey: creds.accessKey, secretKey: creds.secretKey });
  let counter = 0;
  return {
    berth,
    app: berth.app,
    url: berth.managerUrl,
    admin,
    adminCreds: creds,
    anonymous: new BerthClient({ endpoint: berth.managerUrl }),
    async createUser(options = {}) {
      counter += 1;
      const email = `user${counter}-${randomBytes(3).toString('hex')}@example.com`;
      const password = options.password ?? `password-${counter}-xyz`;
      const created = await createUser(berth.app.db, {
        email,
        username: email.split('@')[0],
        password,
        domainName: options.domain ?? 'default',
        role: options.role ?? 'user',
        keypair: { isAdmin: options.isAdmin ?? (options.role === 'admin' || options.role === 'superadmin'), rateLimit: options.rateLimit === undefined ? 10000 : options.rateLimit },
      });
      const client = new BerthClient({ endpoint: berth.managerUrl, accessKey: created.accessKey, secretKey: created.secretKey });
      return { uuid: created.uuid, email, password, accessKey: created.accessKey, secretKey: created.secretKey, client };
    },
    async createDomain(name: string) {
      await berth.app.db
        .insertInto('domains')
        .values({ name, total_resource_slots: json({}), allowed_vfolder_hosts: json({}), allowed_docker_registries: json([]), dotfiles: json([]) })
        .execute();
    },
    async stop() {
      admin.close();
      // Sandboxes outlive a manager by design; a test's must not outlive the test (nor be replaced by the scaler).
      await stopServiceScaler(berth.app);
      await terminateAllSessions(berth.app);
      await berth.stop();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
