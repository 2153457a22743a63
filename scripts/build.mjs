// Builds what `npm start` runs: the manager core and CLI bundled by esbuild into dist/, the dashboard by Next.
import { build, stop } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The newest modification time of any file under `dirs`, or of these files (relative to the project root). */
function newest(dirs) {
  let latest = 0;
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    if (!statSync(dir).isDirectory()) {
      latest = Math.max(latest, statSync(dir).mtimeMs);
      return;
    }
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else latest = Math.max(latest, statSync(full).mtimeMs);
    }
  };
  dirs.forEach((dir) => walk(path.join(root, dir)));
  return latest;
}

const mtime = (file) => (existsSync(path.join(root, file)) ? statSync(path.join(root, file)).mtimeMs : 0);

/** dist/server.mjs is missing or older than a source of the manager core. */
export const serverStale = () => mtime('dist/server.mjs') < newest(['server']);

/** Modules of the manager core that the dashboard's route handlers import (besides the signing client). */
const DASHBOARD_SERVER_MODULES = [
  'server/http/problem.ts',
  'server/http/cookies.ts',
  'server/web/headers.ts',
  'server/web/same-origin.ts',
  'server/web/session-keys.ts',
  'server/web/redirects.ts',
  'server/web/logout.ts',
  'server/config/env.ts',
  'server/auth/oidc-discovery.ts',
  'server/http/relayed.ts',
  'server/web/relay-path.ts',
];

/** .next is missing or older than a source of the dashboard (its pages, components, the signing client, and the modules above). */
export const dashboardStale = () => mtime('.next/BUILD_ID') < newest(['app', 'components', 'public', 'server/client', ...DASHBOARD_SERVER_MODULES]);

export async function buildServer() {
  await build({
    absWorkingDir: root,
    entryPoints: { server: 'server/main.ts', 'web-thread': 'server/web/thread-entry.ts', cli: 'server/client/cli/main.ts' },
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
  // esbuild's service process would otherwise live as long as Berth (~50 MB for nothing).
  await stop();
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
