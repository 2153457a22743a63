import { defineConfig } from 'vitest/config';

// Integration tests run once per database: embedded PGlite always, PostgreSQL when the test command started one.
const databases = ['pglite', ...(process.env.BERTH_TEST_PG_URL ? ['postgres'] : [])];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' } },
      ...databases.map((db) => ({
        test: {
          name: db,
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          env: { BERTH_TEST_DB: db },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      })),
    ],
  },
});
