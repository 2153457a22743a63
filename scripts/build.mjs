// Builds what `npm start` runs: the manager core and CLI bundled by esbuild into dist/, the dashboard by Next.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function buildServer() {
  await build({
    absWorkingDir: root,
    entryPoints: { server: 'server/main.ts', cli: 'server/client/cli/main.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
}

export function buildDashboard() {
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules/next/dist/bin/next'), 'build'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  if (result.status !== 0) throw new Error('next build failed');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const only = process.argv[2];
  if (only !== 'dashboard') await buildServer();
  if (only !== 'server') buildDashboard();
}
