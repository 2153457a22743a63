import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Managers on PGlite start from one migrated database made once per run (test/setup/embedded-template.ts).
const PGLITE_TEMPLATE = ['test/setup/embedded-template.ts'];
// Integration tests run once per database: embedded PGlite always, PostgreSQL when the test command started one.
const databases = ['pglite', ...(process.env.BERTH_TEST_PG_URL ? ['postgres'] : [])];
/**
 * Unit and integration files run at least two at a time, even on a 2-core machine (vitest's default there is one): an
 * integration file spends much of its time waiting on the managers, sandboxes and databases it starts. Each file
 * has its own data directory, ports and PostgreSQL database. Measured 1 Dec 2026 on 2 cores: those files took
 * ~790 s one at a time, 537–549 s two at a time.
 */
const PARALLEL_FILES = Math.max(2, availableParallelism() - 1);
/** The tests in test/<name>, one file at a time (one Slurm cluster, one Docker engine, one browser each). */
const serial = (name: string) => ({
  test: { name, include: [`test/${name}/**/*.test.ts`], environment: 'node', testTimeout: 120_000, hookTimeout: 180_000, fileParallelism: false, globalSetup: PGLITE_TEMPLATE },
});
// Browser tests need the built dashboard and Chromium: the test command sets BERTH_E2E=1 after building.
const browser = process.env.BERTH_E2E === '1' ? [serial('e2e')] : [];
// Slurm tests need the cluster the test command starts (scripts/slurm-cluster.mjs, as root): once, not per database.
const slurm = process.env.BERTH_TEST_SLURM_CONF ? [serial('slurm')] : [];
// Docker tests need the private engine the test command starts (scripts/docker-engine.mjs, as root).
const docker = process.env.BERTH_TEST_DOCKER_HOST ? [serial('docker')] : [];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      // Unit tests import dashboard modules too, which name each other by tsconfig.json's `@/` paths.
      {
        resolve: { alias: [{ find: /^@\//, replacement: fileURLToPath(new URL('./', import.meta.url)) }] },
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node', maxWorkers: PARALLEL_FILES },
      },
      ...databases.map((db) => ({
        test: {
          name: db,
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          env: { BERTH_TEST_DB: db },
          maxWorkers: PARALLEL_FILES,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          globalSetup: db === 'pglite' ? PGLITE_TEMPLATE : [],
        },
      })),
      ...slurm,
      ...docker,
      ...browser,
    ],
  },
});
