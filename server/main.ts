/** `npm start`: runs Berth on its embedded defaults, prints the readiness line, stops cleanly on SIGTERM. */
import { readSettings } from './config/env';
import { startBerth, type Role } from './start';
import { releaseStartupMemory } from './util/release-startup-memory';

async function main(): Promise<void> {
  const settings = readSettings();
  const roles = process.env.BERTH_ROLES ? (process.env.BERTH_ROLES.split(',') as Role[]) : undefined;
  const berth = await startBerth({ settings, roles });
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
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    berth.app.log.info({ signal }, 'shutting down');
    await berth.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error('Berth failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
