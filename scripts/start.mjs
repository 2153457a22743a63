// `npm start`: installs the system packages sessions need (as root), builds what is missing or stale, and runs
// Berth in this process (so its PID is the one to signal).
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePackages } from './system-deps.mjs';
import { buildDashboard, buildServer } from './build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

function newest(dirs) {
  let latest = 0;
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else latest = Math.max(latest, statSync(full).mtimeMs);
    }
  };
  dirs.forEach(walk);
  return latest;
}

const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);

ensurePackages(['run']);
if (mtime('dist/server.mjs') < newest(['server'])) await buildServer();
if (mtime('.next/BUILD_ID') < newest(['app', 'components', 'public', 'server/client'])) buildDashboard();
process.env.NEXT_TELEMETRY_DISABLED = '1';
await import(path.join(root, 'dist/server.mjs'));
