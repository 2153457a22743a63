/**
 * `npm start`: runs Berth on its embedded defaults, prints the readiness line. SIGTERM drains (a rolling restart:
 * WebSockets told to reconnect, requests in flight finish within DRAIN_GRACE_MS); SIGINT stops at once.
 */
import { readSettings } from './config/env';
import { startBerth } from './start';
import { parseRoles } from './cluster/roles';
import { DRAIN_GRACE_MS } from './cluster/drain';
import { releaseStartupMemory } from './util/release-startup-memory';

/** How long a thread's listeners are quiet before its heap is collected (util/idle-collection). */
const IDLE_COLLECTION_MS = 10_000;

async function main(): Promise<void> {
  const settings = readSettings();
  const roles = parseRoles(process.env.BERTH_ROLES);
  const berth = await startBerth({ settings, roles, warmUpDashboard: true, webThread: true, idleCollectionMs: IDLE_COLLECTION_MS });
  const creds = berth.bootstrap.credentials;
  if (creds) {
    console.log(
      [
        '',
        'First start: created the superadmin account (shown once; also saved, mode 0600, to',
        `  ${settings.dataDir}/admin-credentials.json)`,
        `  email:      ${creds.email}   (username: ${creds.username}, domain: default)`,
        `  password:   ${creds.password}`,
        `  access key: ${creds.accessKey}`,
        `  secret key: ${creds.secretKey}`,
        '',
      ].join('\n'),
    );
  }
  releaseStartupMemory();
  console.log(`Berth ready: dashboard ${berth.webUrl ?? '(off)'}, API ${berth.managerUrl}, apps ${berth.appsUrl ?? '(off)'}`);
  let stopping = false;
  const stop = async (signal: string, graceMs: number) => {
    if (stopping) return;
    stopping = true;
    berth.app.log.info({ signal }, 'shutting down');
    // However the drain goes, the process is gone shortly after its bound.
    setTimeout(() => process.exit(1), graceMs + 10_000).unref();
    await berth.stop(graceMs);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM', DRAIN_GRACE_MS));
  process.on('SIGINT', () => void stop('SIGINT', 0));
}

main().catch((err) => {
  console.error('Berth failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
