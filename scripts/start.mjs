// `npm start`: installs the system packages sessions need (as root), builds what is missing or stale, and runs
// Berth in this process (so its PID is the one to signal).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePackages } from './system-deps.mjs';
import { buildDashboard, buildServer, dashboardStale, serverStale } from './build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

ensurePackages(['run']);
if (serverStale()) await buildServer();
if (dashboardStale()) buildDashboard();
process.env.NEXT_TELEMETRY_DISABLED = '1';
await import(path.join(root, 'dist/server.mjs'));
