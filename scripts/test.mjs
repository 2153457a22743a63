// `npm test`: every test, as CI runs it. Installs the Debian packages tests need (as root), type-checks, lints, starts a
// throwaway PostgreSQL (and, as root, a throwaway Slurm cluster and Docker engine), builds the app for the browser tests, then runs the
// unit tests, the integration tests on both databases (PGlite and PostgreSQL), the Slurm and Docker tests and the browser tests,
// and prints one closing line.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePackages } from './system-deps.mjs';
import { startPostgres } from './postgres.mjs';
import { slurmTestEnv, startSlurmCluster } from './slurm-cluster.mjs';
import { dockerTestEnv, startDockerEngine } from './docker-engine.mjs';
import { buildDashboard, buildServer } from './build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const bin = (name) => path.join(root, 'node_modules/.bin', name);

ensurePackages(['run', 'test']);

console.log('\n== type check (tsc --noEmit)');
if (spawnSync(bin('tsc'), ['--noEmit'], { stdio: 'inherit' }).status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

console.log('\n== lint (eslint, and the layer rule in .dependency-cruiser.cjs)');
if (spawnSync('npm', ['run', '--silent', 'lint'], { stdio: 'inherit' }).status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

console.log('\n== build (server bundle and dashboard)');
await buildServer();
buildDashboard();

console.log('\n== tests');
const pg = await startPostgres();
// The Slurm cluster needs root (network namespaces, a bridge); without it the Slurm tests are left out.
let slurm = null;
if (process.getuid?.() === 0) {
  const started = Date.now();
  try {
    slurm = await startSlurmCluster();
  } catch (err) {
    pg.stop();
    throw err;
  }
  console.log(`Slurm test cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s (${slurm.nodes.map((n) => n.name).join(', ')})`);
}
// The Docker engine too (its own dockerd, data root and exec root; the test images made without a registry).
let docker = null;
if (process.getuid?.() === 0) {
  const started = Date.now();
  try {
    docker = await startDockerEngine();
  } catch (err) {
    pg.stop();
    await slurm?.stop();
    throw err;
  }
  console.log(`Docker test engine up in ${((Date.now() - started) / 1000).toFixed(1)} s (${docker.host})`);
}
const reportDir = mkdtempSync(path.join(tmpdir(), 'berth-report-'));
const report = path.join(reportDir, 'vitest.json');
let status = 1;
try {
  const result = spawnSync(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, BERTH_TEST_PG_URL: pg.url, BERTH_E2E: '1', ...(slurm ? slurmTestEnv(slurm) : {}), ...(docker ? dockerTestEnv(docker) : {}) },
  });
  status = result.status ?? 1;
} finally {
  pg.stop();
  if (slurm) {
    const stopping = Date.now();
    await slurm.stop();
    console.log(`Slurm test cluster stopped in ${((Date.now() - stopping) / 1000).toFixed(1)} s`);
  }
  await docker?.stop();
}
try {
  const summary = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = summary.numPendingTests + summary.numTodoTests;
  console.log(`\n${summary.numPassedTests} passed, ${summary.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
} catch {
  console.log('\n0 passed, 1 failed');
  status = status || 1;
}
rmSync(reportDir, { recursive: true, force: true });
process.exit(status);
