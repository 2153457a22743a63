// Runs a command with a throwaway PostgreSQL (BERTH_TEST_PG_URL set), e.g. for one test file on both databases:
//   node scripts/with-postgres.mjs npx vitest run test/integration/auth.test.ts
import { spawnSync } from 'node:child_process';
import { startPostgres } from './postgres.mjs';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node scripts/with-postgres.mjs COMMAND [ARGS...]');
  process.exit(2);
}
const pg = await startPostgres();
let status = 1;
try {
  status = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, BERTH_TEST_PG_URL: pg.url } }).status ?? 1;
} finally {
  pg.stop();
}
process.exit(status);
