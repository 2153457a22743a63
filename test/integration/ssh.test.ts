/**
 * SSH into a session (issue 13): the sshd intrinsic app in a real sandbox, reached with the real OpenSSH and rsync
 * clients through `berth app … sshd`, `berth ssh`, the tcpproxy stream and the app proxy's TCP endpoints; another
 * user refused on every path; the session key in no log, row or foreign listing; forwards closed on Ctrl-C and
 * when the session ends.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startTestBerth, type TestBerth, type TestUser } from '../helpers/berth';
import { connectStream } from '../helpers/ws';

let t: TestBerth;
let alice: TestUser;
let bob: TestUser;
let home: string;
let sessionId: string;
const name = 'ssh-sess';
const preopen = 30990;
const logged: string[] = [];
// Each test runs the CLI and real clients several times (tsx starts in ~2 s on these machines).
vi.setConfig({ testTimeout: 120_000 });

const CLI = path.resolve(__dirname, '../../server/client/cli/main.ts');

beforeAll(async () => {
  t = await startTestBerth({}, { roles: ['manager', 'apps'] });
  // Everything the manager logs, at debug level, to look for keys in.
  (t.app as { log: unknown }).log = pino({ level: 'debug' }, new Writable({ write: (c, _e, cb) => (logged.push(String(c)), cb()) }));
  alice = await t.createUser();
  bob = await t.createUser();
  home = mkdtempSync(path.join(tmpdir(), 'berth-ssh-'));
  for (const who of ['alice', 'bob']) mkdirSync(path.join(home, who), { mode: 0o700 });
  // Alice's own SSH keypair (/auth/ssh-keypair) is authorized in her sessions beside the session key.
  const pair = await alice.client.call('PATCH', '/auth/ssh-keypair');
  writeFileSync(path.join(home, 'alice', 'own.key'), pair.ssh_private_key, { mode: 0o600 });
  const bobPair = await bob.client.call('PATCH', '/auth/ssh-keypair');
  writeFileSync(path.join(home, 'bob', 'own.key'), bobPair.ssh_private_key, { mode: 0o600 });
  sessionId = (await alice.client.call('POST', '/session', { body: { name, image: 'python', config: { preopen_ports: [preopen] } } })).sessionId;
}, 120_000);
afterAll(async () => {
  await t?.stop();
  rmSync(home, { recursive: true, force: true });
});

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function collect(child: ChildProcess, input?: string): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  child.stdin?.end(input);
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : -1), stdout, stderr })));
}

function cliEnv(user: TestUser, who: string): NodeJS.ProcessEnv {
  return { ...process.env, BERTH_ENDPOINT: t.url, BERTH_ACCESS_KEY: user.accessKey, BERTH_SECRET_KEY: user.secretKey, BERTH_KEY_DIR: path.join(home, who) };
}

const berth = (user: TestUser, who: string, args: string[]) => collect(spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { env: cliEnv(user, who) }));

/** `berth app … --bind 127.0.0.1:0` in the background; resolves once it prints where it listens. */
async function startAppForward(user: TestUser, who: string, session: string, app: string): Promise<{ child: ChildProcess; port: number; output: () => string; done: Promise<Ran> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'app', session, app, '--bind', '127.0.0.1:0'], { env: cliEnv(user, who) });
  let output = '';
  const done = collect(child);
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const m = /Forwarding 127\.0\.0\.1:(\d+)/.exec(output);
      if (m && output.includes('Press Ctrl-C')) resolve(Number(m[1]));
    });
    void done.then((r) => reject(new Error(`berth app exited ${r.code}: ${output}`)));
  });
  return { child, port, output: () => output, done };
}

const sshArgs = (port: number, key: string, logLevel = 'ERROR') => ['-p', String(port), '-i', key, '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', `LogLevel=${logLevel}`];
const ssh = (port: number, key: string, args: string[], input?: string) => collect(spawn('ssh', [...sshArgs(port, key), 'work@127.0.0.1', ...args]), input);

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    }).on('error', reject);
  });
}

describe('sshd in every session', () => {
  it('lists sshd beside ttyd in servicePorts and /apps', async () => {
    const apps = await alice.client.call('GET', `/stream/session/${name}/apps`);
    expect(apps).toContainEqual({ name: 'sshd', protocol: 'tcp', ports: [2200], url_template: null, allowed_arguments: null, allowed_envs: null });
    expect(apps).toContainEqual(expect.objectContaining({ name: 'ttyd', protocol: 'http', ports: [7681] }));
    const shell = await alice.client.call('POST', '/session', { body: { name: 'ssh-shell', image: 'shell' } });
    expect(shell.servicePorts).toContainEqual(expect.objectContaining({ name: 'sshd', protocol: 'tcp', ports: [2200] }));
    await alice.client.call('DELETE', '/session/ssh-shell');
  });

  it('berth ssh fetches the session key to a 0600 file and runs a command', async () => {
    const res = await berth(alice, 'alice', ['ssh', name, '--', 'python3', '-c', '"print(6*7)"']);
    expect(res.stderr).toBe('');
    expect(res.stdout.trim()).toBe('42');
    expect(res.code).toBe(0);
    const key = path.join(home, 'alice', `${name}.key`);
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(readFileSync(key, 'utf8')).toContain('BEGIN OPENSSH PRIVATE KEY');
    // ssh's exit status comes through.
    const exited = await berth(alice, 'alice', ['ssh', name, '--', 'exit', '3']);
    expect(exited.code, exited.stderr).toBe(3);
  });

  it('berth app forwards sshd: ssh, scp, sftp and rsync in and out with the real clients', async () => {
    const forward = await startAppForward(alice, 'alice', name, 'sshd');
    const key = path.join(home, 'alice', `${name}.key`);
    try {
      // It fetched the session key itself: the printed command works as it is.
      expect(forward.output()).toContain(`ssh -p ${forward.port} -i ${key} work@127.0.0.1`);
      const printed = /^ {2}(ssh -p .*)$/m.exec(forward.output())![1].split(' ');
      expect((await collect(spawn(printed[0], [...printed.slice(1, -1), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', printed.at(-1)!, 'echo', 'printed-works']))).stdout.trim()).toBe('printed-works');
      const answer = await ssh(forward.port, key, ['python3', '-c', '"print(6*7)"']);
      expect(answer.stdout.trim(), answer.stderr).toBe('42');
      // The user's own /auth/ssh-keypair key is authorized too.
      expect((await ssh(forward.port, path.join(home, 'alice', 'own.key'), ['whoami'])).stdout.trim()).toBe('work');

      const local = path.join(home, 'alice', 'data');
      mkdirSync(path.join(local, 'sub'), { recursive: true });
      writeFileSync(path.join(local, 'a.txt'), 'alpha\n');
      writeFileSync(path.join(local, 'sub', 'b.bin'), Buffer.alloc(300_000, 7));
      const rsyncIn = await collect(spawn('rsync', ['-e', `ssh ${sshArgs(forward.port, key).join(' ')}`, '-a', `${local}/`, 'work@127.0.0.1:data/']));
      expect(rsyncIn.stderr).toBe('');
      expect(rsyncIn.code).toBe(0);
      expect((await ssh(forward.port, key, ['cat', 'data/a.txt', ';', 'stat', '-c', '%s', 'data/sub/b.bin'])).stdout).toBe('alpha\n300000\n');
      // rsync back out, after a change made in the session.
      await ssh(forward.port, key, ['echo', 'made-inside', '>', 'data/c.txt']);
      const back = path.join(home, 'alice', 'back');
      const rsyncOut = await collect(spawn('rsync', ['-e', `ssh ${sshArgs(forward.port, key).join(' ')}`, '-a', 'work@127.0.0.1:data/', `${back}/`]));
      expect(rsyncOut.code).toBe(0);
      expect(readFileSync(path.join(back, 'c.txt'), 'utf8')).toBe('made-inside\n');
      expect(readFileSync(path.join(back, 'sub', 'b.bin')).equals(Buffer.alloc(300_000, 7))).toBe(true);

      const scp = await collect(spawn('scp', ['-P', String(forward.port), ...sshArgs(forward.port, key).slice(2), path.join(local, 'a.txt'), 'work@127.0.0.1:scp.txt']));
      expect(scp.code).toBe(0);
      const sftp = await collect(spawn('sftp', ['-P', String(forward.port), ...sshArgs(forward.port, key).slice(2), '-b', '-', 'work@127.0.0.1']), 'ls -1 scp.txt\nget scp.txt ' + path.join(home, 'alice', 'sftp.txt') + '\n');
      expect(sftp.code).toBe(0);
      expect(readFileSync(path.join(home, 'alice', 'sftp.txt'), 'utf8')).toBe('alpha\n');
    } finally {
      forward.child.kill('SIGINT');
      await forward.done;
    }
  });

  it('sshd runs without root and cannot read outside the sandbox; passwords are refused', async () => {
    const forward = await startAppForward(alice, 'alice', name, 'sshd');
    const key = path.join(home, 'alice', `${name}.key`);
    try {
      const who = await ssh(forward.port, key, ['id', '-u', ';', 'ps', '-o', 'user=,comm=', '-C', 'sshd']);
      expect(who.code, who.stderr).toBe(0);
      const [uid, ...sshds] = who.stdout.trim().split('\n');
      expect(uid).toMatch(/^\d+$/);
      expect(Number(uid)).not.toBe(0);
      expect(sshds.length).toBeGreaterThan(0);
      for (const line of sshds) expect(line.trim().split(/\s+/)[0]).not.toBe('root');
      const outside = await ssh(forward.port, key, ['cat', '/etc/shadow', ';', 'test', '-e', t.app.settings.dataDir, '&&', 'echo', 'SEES-DATA-DIR', ';', 'ls', '/root']);
      expect(outside.stdout).not.toContain('SEES-DATA-DIR');
      expect(outside.stdout).not.toContain('root:');
      expect(outside.stderr).toMatch(/Permission denied|No such file/);
      const password = await collect(spawn('ssh', ['-p', String(forward.port), '-o', 'PubkeyAuthentication=no', '-o', 'PreferredAuthentications=password,keyboard-interactive', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', 'work@127.0.0.1', 'true']));
      expect(password.code).toBe(255);
      expect(password.stderr).toContain('Permission denied (publickey)');
    } finally {
      forward.child.kill('SIGINT');
      await forward.done;
    }
  });

  it('port forwarding reaches only the session itself (its preopen ports), nothing else on the host', async () => {
    const forward = await startAppForward(alice, 'alice', name, 'sshd');
    const key = path.join(home, 'alice', `${name}.key`);
    try {
      // The session's own server on its preopen port is reachable with ssh -W; the manager's port is not.
      const server = await ssh(forward.port, key, ['nohup', 'python3', '-m', 'http.server', '--bind', '127.0.0.1', String(preopen), '>/dev/null', '2>&1', '&', 'sleep', '1']);
      expect(server.code).toBe(0);
      const own = await collect(spawn('ssh', [...sshArgs(forward.port, key), '-W', `127.0.0.1:${preopen}`, 'work@127.0.0.1']), 'GET / HTTP/1.0\r\n\r\n');
      expect(own.stdout).toMatch(/^HTTP\/1\.0 200/);
      const manager = new URL(t.url).port;
      const denied = await collect(spawn('ssh', [...sshArgs(forward.port, key, 'INFO'), '-W', `127.0.0.1:${manager}`, 'work@127.0.0.1']), 'GET / HTTP/1.0\r\n\r\n');
      expect(denied.stdout).toBe('');
      expect(denied.stderr).toContain('administratively prohibited');
      const remote = await collect(spawn('ssh', [...sshArgs(forward.port, key), '-o', 'ExitOnForwardFailure=yes', '-R', '127.0.0.1:30991:127.0.0.1:22', 'work@127.0.0.1', 'true']));
      expect(remote.code).not.toBe(0);
    } finally {
      forward.child.kill('SIGINT');
      await forward.done;
    }
  });
});

describe('another user', () => {
  it('can neither forward to nor read the key of another user\'s session (HTTP, WebSocket, CLI)', async () => {
    await expect(connectStream(t.url, bob, `/stream/session/${name}/tcpproxy`, { app: 'sshd' })).rejects.toMatchObject({ status: 404 });
    expect((await bob.client.request('GET', `/session/${name}/download_single`, { query: { file: '/home/work/id_container' } })).status).toBe(404);
    expect((await bob.client.request('GET', `/session/${name}/files`, { query: { path: '.' } })).status).toBe(404);
    const cli = await berth(bob, 'bob', ['app', name, 'sshd']);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('404');
    expect((await berth(bob, 'bob', ['ssh', name, '--', 'true'])).code).toBe(1);
    expect(existsSync(path.join(home, 'bob', `${name}.key`))).toBe(false);
  });

  it('cannot log in with their own key even when they reach the port', async () => {
    const forward = await startAppForward(alice, 'alice', name, 'sshd');
    try {
      const res = await ssh(forward.port, path.join(home, 'bob', 'own.key'), ['true']);
      expect(res.code).toBe(255);
      expect(res.stderr).toContain('Permission denied');
    } finally {
      forward.child.kill('SIGINT');
      await forward.done;
    }
  });

  it('cannot use the app proxy path: no start-service on the session, and a token works only for its own session', async () => {
    expect((await bob.client.request('POST', `/session/${name}/start-service`, { body: { app: 'sshd' } })).status).toBe(404);
    const bobSession = (await bob.client.call('POST', '/session', { body: { name: 'ssh-bob', image: 'shell' } })).sessionId;
    const started = await bob.client.call('POST', '/session/ssh-bob/start-service', { body: { app: 'sshd' } });
    const added = await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${sessionId}/add?app=sshd&protocol=tcp`);
    expect(added.status).toBe(401);
    const own = await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${bobSession}/add?app=sshd&protocol=tcp`);
    expect(own.status).toBe(200);
    await bob.client.call('DELETE', '/session/ssh-bob');
  });
});

describe('the app proxy TCP protocol (CONTRACT §11.2)', () => {
  it('answers an endpoint whose host and port reach sshd; the token is single-use', async () => {
    const started = await alice.client.call('POST', `/session/${name}/start-service`, { body: { app: 'sshd' } });
    const added = await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${sessionId}/add?app=sshd&protocol=tcp`);
    expect(added.status).toBe(200);
    const body = JSON.parse(added.body);
    expect(body.code).toBe(200);
    const url = new URL(body.url);
    expect(url.protocol).toBe('tcp:');
    const key = path.join(home, 'alice', `${name}.key`);
    const res = await collect(spawn('ssh', [...sshArgs(Number(url.port), key).slice(2), '-p', url.port, `work@${url.hostname}`, 'echo', 'via-app-proxy']));
    expect(res.stdout.trim()).toBe('via-app-proxy');
    expect((await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${sessionId}/add?app=sshd&protocol=tcp`)).status).toBe(401);
  });

  it('refuses protocol=tcp for an HTTP app', async () => {
    const started = await alice.client.call('POST', `/session/${name}/start-service`, { body: { app: 'jupyter' } });
    const added = await get(`${started.wsproxy_addr}/v2/proxy/${started.token}/${sessionId}/add?app=jupyter&protocol=tcp`);
    expect(added.status).toBe(400);
  });
});

describe('relays and forwards', () => {
  it('a tcpproxy to an app that is not running answers a clean error at once', async () => {
    // The preopen port, with nothing listening on it now (the http.server above was in another test's ssh login,
    // so kill whatever may still be there first).
    // ([h] keeps the pattern from matching the shell that runs it; pkill returns before the server is gone.)
    await berth(alice, 'alice', ['ssh', name, '--', "pkill -f '[h]ttp.server'; while pgrep -f '[h]ttp.server' >/dev/null; do sleep 0.1; done"]);
    await expect(connectStream(t.url, alice, `/stream/session/${name}/tcpproxy`, { app: String(preopen) })).rejects.toMatchObject({ status: 502 });
    await expect(connectStream(t.url, alice, `/stream/session/${name}/tcpproxy`, { app: 'nope' })).rejects.toMatchObject({ status: 404 });
    await expect(connectStream(t.url, alice, `/stream/session/nope-nope/tcpproxy`, { app: 'sshd' })).rejects.toMatchObject({ status: 404 });
  });

  it('berth app puts an HTTP app (Jupyter) on a local port', async () => {
    const forward = await startAppForward(alice, 'alice', name, 'jupyter');
    try {
      const url = /open (http:\/\/\S+)/.exec(forward.output())![1];
      expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${forward.port}/app/[0-9a-f]{24}/$`));
      const status = await get(`${url}api/status`);
      expect(status.status).toBe(200);
      expect(JSON.parse(status.body)).toHaveProperty('kernels');
    } finally {
      forward.child.kill('SIGINT');
      await forward.done;
    }
  });

  it('Ctrl-C closes the listener and every forwarded connection', async () => {
    const forward = await startAppForward(alice, 'alice', name, 'sshd');
    const key = path.join(home, 'alice', `${name}.key`);
    const long = spawn('ssh', [...sshArgs(forward.port, key), 'work@127.0.0.1', 'echo', 'started', ';', 'sleep', '600']);
    const longDone = collect(long);
    await new Promise<void>((resolve) => long.stdout!.on('data', (d) => String(d).includes('started') && resolve()));
    forward.child.kill('SIGINT');
    expect((await forward.done).code).toBe(0);
    expect((await longDone).code).toBe(255);
    await expect(new Promise((resolve, reject) => net.connect(forward.port, '127.0.0.1').once('connect', resolve).once('error', reject))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('a forward whose session ends closes its connections', async () => {
    await alice.client.call('POST', '/session', { body: { name: 'ssh-ends', image: 'shell' } });
    await berth(alice, 'alice', ['ssh', 'ssh-ends', '--', 'true']);
    const forward = await startAppForward(alice, 'alice', 'ssh-ends', 'sshd');
    const key = path.join(home, 'alice', 'ssh-ends.key');
    const long = spawn('ssh', [...sshArgs(forward.port, key), 'work@127.0.0.1', 'echo', 'started', ';', 'sleep', '600']);
    const longDone = collect(long);
    await new Promise<void>((resolve) => long.stdout!.on('data', (d) => String(d).includes('started') && resolve()));
    await alice.client.call('DELETE', '/session/ssh-ends');
    expect((await longDone).code).toBe(255);
    // The next connection finds the session gone: the forward says so and stops.
    net.connect(forward.port, '127.0.0.1').on('error', () => undefined);
    expect((await forward.done).code).toBe(1);
    expect(forward.output()).toContain('the session ssh-ends has ended');
  });
});

describe('the session key stays private', () => {
  it('appears in no log, no stored row and no CLI output', async () => {
    const key = readFileSync(path.join(home, 'alice', `${name}.key`), 'utf8');
    // The lines past the first two carry the key material (the first ones are the same in every ed25519 key).
    const body = key.split('\n').slice(2, 4).join('\n');
    expect(body.length).toBeGreaterThan(20);
    const { result } = await alice.client.call('GET', `/session/${name}/logs`);
    expect(result.logs).not.toContain(body);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join('')).not.toContain(body);
    expect(logged.join('')).not.toContain('BEGIN OPENSSH PRIVATE KEY');
    for (const table of ['sessions', 'kernels', 'app_routes', 'keypairs'] as const) {
      const rows = await t.app.db.selectFrom(table).selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain(body);
    }
    // The owner reads it through download_single, as CONTRACT §11.4 says.
    const own = await alice.client.request('GET', `/session/${name}/download_single`, { query: { file: '/home/work/id_container' } });
    expect(own.text).toBe(key);
  });
});
