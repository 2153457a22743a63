/**
 * `berth app SESSION APP [--bind HOST:PORT]`: a session's app on a local port, and `berth ssh SESSION [-- CMD]`:
 * the system's ssh into the session through such a forward, with the session key fetched to a 0600 file.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ApiError, type BerthClient } from '../client';
import { probeApp, startForward, type Forward } from '../forward';
import { signedClient, UsageError } from './credentials';

const SSH_USER = 'work';
const SESSION_KEY = '/home/work/id_container';
const HOST_KEY = '/home/work/.berth/sshd/ssh_host_ed25519_key.pub';

export function parseBind(text: string | undefined): { host: string; port: number } {
  if (!text) return { host: '127.0.0.1', port: 0 };
  const match = /^(?:\[([0-9a-fA-F:]+)\]|([^:\s]+)):(\d{1,5})$/.exec(text) ?? /^()()(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || !(port >= 0 && port <= 65535)) throw new UsageError(`--bind wants HOST:PORT (e.g. 127.0.0.1:2222), not "${text}"`);
  return { host: match[1] || match[2] || '127.0.0.1', port };
}

async function appProtocol(client: BerthClient, session: string, app: string): Promise<'tcp' | 'http'> {
  const apps = await client.call<{ name: string; protocol: string }[]>('GET', `/stream/session/${encodeURIComponent(session)}/apps`);
  const found = apps.find((a) => a.name === app);
  if (!found) throw new UsageError(`the session ${session} has no app named ${app} (it has: ${apps.map((a) => a.name).join(', ')})`);
  return found.protocol === 'tcp' ? 'tcp' : 'http';
}

/** Where `berth ssh` keeps a session's key (the issue's ~/.berth/<session>.key). */
export const keyDir = () => process.env.BERTH_KEY_DIR || path.join(homedir(), '.berth');

/** Downloads the session key (0600) and the session's host key (a known_hosts file), so ssh can check both ends. */
export async function fetchSessionKeys(client: BerthClient, session: string): Promise<{ keyFile: string; knownHosts: string; alias: string }> {
  const dir = keyDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const download = async (file: string) => (await client.request('GET', `/session/${encodeURIComponent(session)}/download_single`, { query: { file } }));
  const [key, host] = await Promise.all([download(SESSION_KEY), download(HOST_KEY)]);
  for (const res of [key, host]) if (!res.ok) throw new ApiError(res.status, res.json());
  const safe = session.replace(/[^\w.-]/g, '_');
  const keyFile = path.join(dir, `${safe}.key`);
  writeFileSync(keyFile, key.body, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  const alias = `berth-${safe}`;
  const knownHosts = path.join(dir, `${safe}.known_hosts`);
  writeFileSync(knownHosts, `${alias} ${host.text.trim().split(/\s+/).slice(0, 2).join(' ')}\n`, { mode: 0o600 });
  return { keyFile, knownHosts, alias };
}

export function sshOptions(forward: { port: number }, keys: { keyFile: string; knownHosts: string; alias: string }): string[] {
  return ['-p', String(forward.port), '-i', keys.keyFile, '-o', 'IdentitiesOnly=yes', '-o', `HostKeyAlias=${keys.alias}`, '-o', `UserKnownHostsFile=${keys.knownHosts}`, '-o', 'StrictHostKeyChecking=yes'];
}

const ENDED = ['TERMINATING', 'TERMINATED', 'ERROR', 'CANCELLED'];

/** Whether the session is gone or over (a refused connection may just be a passing error). */
async function sessionEnded(client: BerthClient, session: string): Promise<boolean> {
  const res = await client.request('GET', `/session/${encodeURIComponent(session)}`).catch(() => null);
  if (!res) return false;
  const ended = res.status === 404 || (res.ok && ENDED.includes(res.json().status));
  if (ended) console.error(`berth app: the session ${session} has ended; stopping the forward.`);
  return ended;
}

/** Closes the forward on Ctrl-C / SIGTERM and resolves when that happened. */
function untilInterrupted(forward: Forward): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void forward.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export async function appForward(args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { bind: { type: 'string' } } });
  const [session, app] = positionals;
  if (!session || !app) throw new UsageError('app needs a SESSION and an APP (e.g. berth app dev sshd --bind 127.0.0.1:2222)');
  const bind = parseBind(values.bind);
  const client = signedClient();
  const protocol = await appProtocol(client, session, app);
  // Starts the app (if needed) and proves access before anything listens locally.
  const { basePath } = await probeApp(client, session, app, protocol);
  let sessionGone = false;
  const forward = await startForward(client, {
    session, app, protocol, ...bind,
    onError: (err) => {
      console.error(`berth app: a connection was refused: ${err instanceof Error ? err.message : String(err)}`);
      // The session ended (or is no longer ours): nothing more will get through, so the forward stops.
      if (err instanceof ApiError) void sessionEnded(client, session).then((ended) => (sessionGone ||= ended));
    },
  });
  const where = forward.host.includes(':') ? `[${forward.host}]` : forward.host;
  if (app === 'sshd') {
    // The session key (and its host key), so the printed commands work as they are.
    const keys = await fetchSessionKeys(client, session);
    const ssh = `ssh -p ${forward.port} -i ${keys.keyFile}`;
    console.log(`Forwarding ${where}:${forward.port} to ${app} in ${session} (session key: ${keys.keyFile}).`);
    console.log(`  ${ssh} ${SSH_USER}@${where}`);
    console.log(`  rsync -e '${ssh}' -a ./data/ ${SSH_USER}@${where}:data/`);
    console.log(`  (to check the server's host key: -o HostKeyAlias=${keys.alias} -o UserKnownHostsFile=${keys.knownHosts})`);
  } else if (protocol === 'http') {
    console.log(`Forwarding ${where}:${forward.port} to ${app} in ${session}: open http://${where}:${forward.port}${basePath}`);
  } else {
    console.log(`Forwarding ${where}:${forward.port} to ${app} in ${session}.`);
  }
  console.log('Press Ctrl-C to stop.');
  const watch = setInterval(() => {
    if (sessionGone) void forward.close().then(() => process.exit(1));
  }, 200);
  await untilInterrupted(forward);
  clearInterval(watch);
  return undefined;
}

export async function ssh(args: string[]): Promise<unknown> {
  const split = args.indexOf('--');
  const own = split < 0 ? args : args.slice(0, split);
  const command = split < 0 ? [] : args.slice(split + 1);
  const { positionals } = parseArgs({ args: own, allowPositionals: true, options: {} });
  const [session] = positionals;
  if (!session) throw new UsageError('ssh needs a SESSION (e.g. berth ssh dev -- python3 -V)');
  const client = signedClient();
  await probeApp(client, session, 'sshd', 'tcp');
  const keys = await fetchSessionKeys(client, session);
  const forward = await startForward(client, { session, app: 'sshd', protocol: 'tcp', host: '127.0.0.1', port: 0, onError: (err) => console.error(`berth ssh: ${err instanceof Error ? err.message : String(err)}`) });
  // Ctrl-C belongs to ssh (and the remote side) while it runs; the forward goes when ssh does.
  const ignore = () => undefined;
  process.on('SIGINT', ignore);
  try {
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn('ssh', [...sshOptions(forward, keys), '-o', 'LogLevel=ERROR', `${SSH_USER}@127.0.0.1`, ...command], { stdio: 'inherit' });
      child.on('error', reject);
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 + 2 : 1)));
    });
    process.exitCode = code;
  } finally {
    process.off('SIGINT', ignore);
    await forward.close();
  }
  return undefined;
}
