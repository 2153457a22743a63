// Runs a command with a throwaway Docker engine and its two test images (BERTH_TEST_DOCKER_HOST and
// BERTH_TEST_DOCKER_IMAGES set; needs root), e.g. for the Docker tests alone:
//   node scripts/with-docker.mjs npx vitest run --project docker
import { spawnSync } from 'node:child_process';
import { dockerTestEnv, startDockerEngine } from './docker-engine.mjs';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node scripts/with-docker.mjs COMMAND [ARGS...]');
  process.exit(2);
}
const engine = await startDockerEngine();
let status = 1;
try {
  status = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...dockerTestEnv(engine) } }).status ?? 1;
} finally {
  await engine.stop();
}
process.exit(status);
