// Runs a command with a throwaway Slurm cluster (BERTH_TEST_SLURM_CONF and BERTH_TEST_SLURM_NODES set; needs root),
// e.g. for the Slurm tests alone:
//   node scripts/with-slurm.mjs npx vitest run --project slurm
import { spawnSync } from 'node:child_process';
import { slurmTestEnv, startSlurmCluster } from './slurm-cluster.mjs';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node scripts/with-slurm.mjs COMMAND [ARGS...]');
  process.exit(2);
}
const cluster = await startSlurmCluster();
let status = 1;
try {
  status = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...slurmTestEnv(cluster) } }).status ?? 1;
} finally {
  await cluster.stop();
}
process.exit(status);

