// A throwaway Docker engine on this machine (Debian's docker.io), for the test command and benches: a private
// dockerd with its own socket, data root and exec root under a temporary directory, no iptables rules and no default
// bridge (PLATFORM.md's Docker row), and two small test images made without any registry:
//   berth-test/python:bookworm  a debootstrap'ed Debian minbase with python3 and Backend.AI's labels (the root
//                               file system is cached as a tarball under /var/cache/berth-test: ~40 s once)
//   berth-test/shell:busybox    busybox only, no Python: terminals and batch commands work, execution does not
// Needs root.
// The same dockerd also listens on tcp://127.0.0.1:<free port> with --tlsverify (a throwaway CA, a server certificate
// for 127.0.0.1/localhost and a client certificate, made with openssl in the engine's directory), so tests reach one
// engine, with one set of images, both as a unix:// and as a tcp:// engine.
//   node scripts/docker-engine.mjs start    prints the environment to use, runs until SIGINT/SIGTERM, then stops
import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import { closeSync, openSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync, chmodSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Docker from 'dockerode';

const CACHE_DIR = '/var/cache/berth-test';
const DEBIAN_TARBALL = path.join(CACHE_DIR, 'bookworm-minbase-python3.tar');
export const PYTHON_IMAGE = 'berth-test/python:bookworm';
export const SHELL_IMAGE = 'berth-test/shell:busybox';
const READY_TIMEOUT_MS = 60_000;

const PYTHON_LABELS = {
  'ai.backend.kernelspec': '1',
  'ai.backend.base-distro': 'debian12',
  'ai.backend.runtime-type': 'python',
  'ai.backend.runtime-path': '/usr/bin/python3',
  'ai.backend.resource.min.cpu': '0.5',
  'ai.backend.resource.min.mem': '128m',
  'ai.backend.service-ports': 'web:http:8000',
};

/**
 * Starts dockerd and waits until it answers; makes the test images unless `images` is false. `dir` holds every
 * file of the engine (a short temporary one is made when not given: containerd's socket paths are length-limited).
 */
export async function startDockerEngine({ dir, images = true } = {}) {
  if (process.getuid?.() !== 0) throw new Error('the Docker test engine needs root');
  const base = dir ?? mkdtempSync(path.join(tmpdir(), 'bdk-'));
  const layout = { dir: base, socket: path.join(base, 'docker.sock'), pidFile: path.join(base, 'dockerd.pid'), pid: null };
  mkdirSync(path.join(base, 'data'), { recursive: true });
  mkdirSync(path.join(base, 'exec'), { recursive: true });
  const log = path.join(base, 'dockerd.log');
  const tls = makeTlsFiles(base);
  const port = await freePort();
  const args = [
    '--data-root', path.join(base, 'data'), '--exec-root', path.join(base, 'exec'), '-H', `unix://${layout.socket}`,
    '-H', `tcp://127.0.0.1:${port}`, '--tlsverify', '--tlscacert', tls.serverCa, '--tlscert', tls.serverCert, '--tlskey', tls.serverKey,
    '--pidfile', layout.pidFile, '--iptables=false', '--ip6tables=false', '--bridge=none', '--log-level=warn',
  ];
  const out = openSync(log, 'a');
  const child = spawn('/usr/sbin/dockerd', args, { detached: true, stdio: ['ignore', out, out] });
  closeSync(out);
  child.unref();
  layout.pid = child.pid;
  const engine = {
    host: `unix://${layout.socket}`,
    socket: layout.socket,
    tcpHost: `tcp://127.0.0.1:${port}`,
    tlsDir: tls.clientDir,
    untrustedTlsDir: tls.untrustedDir,
    dir: base,
    pid: child.pid,
    images: { python: PYTHON_IMAGE, shell: SHELL_IMAGE },
    stop: () => stopEngine(layout, !dir),
    /** The engine going away on its own: dockerd stops (and with it its containers), nothing is removed. */
    shutdown: async () => {
      await rememberBridges(layout);
      await signalAndWait(child.pid, 'SIGTERM');
    },
  };
  try {
    const docker = new Docker({ socketPath: layout.socket });
    await waitForEngine(docker, child);
    if (images) {
      await importImage(layout.socket, debianTarball(), PYTHON_IMAGE, PYTHON_LABELS);
      await importImage(layout.socket, busyboxTarball(base), SHELL_IMAGE, {});
    }
  } catch (err) {
    await engine.stop();
    throw err;
  }
  return engine;
}

/** A port nobody listens on right now (dockerd binds it a moment later). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The engine's TLS files under `base`: a CA, dockerd's certificate for 127.0.0.1/localhost, a client certificate
 * (tls/: ca.pem, cert.pem, key.pem, as BERTH_DOCKER_TLS_DIR wants them) and one from another CA (tls-untrusted/),
 * which dockerd refuses. openssl by argv only.
 */
function makeTlsFiles(base) {
  const dir = path.join(base, 'tls-server');
  const clientDir = path.join(base, 'tls');
  const untrustedDir = path.join(base, 'tls-untrusted');
  for (const d of [dir, clientDir, untrustedDir]) mkdirSync(d, { recursive: true, mode: 0o700 });
  const openssl = (...args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  const ca = (prefix, name) => openssl('req', '-x509', ...ecKey, '-keyout', `${prefix}-key.pem`, '-out', `${prefix}.pem`, '-days', '7', '-subj', `/CN=${name}`);
  const signed = (caPrefix, keyOut, certOut, subject, extensions) => {
    const ext = `${certOut}.ext`;
    writeFileSync(ext, extensions);
    openssl('req', '-new', ...ecKey, '-keyout', keyOut, '-out', `${certOut}.csr`, '-subj', subject);
    openssl('x509', '-req', '-in', `${certOut}.csr`, '-CA', `${caPrefix}.pem`, '-CAkey', `${caPrefix}-key.pem`, '-CAcreateserial', '-out', certOut, '-days', '7', '-extfile', ext);
  };
  const caPrefix = path.join(dir, 'ca');
  ca(caPrefix, 'berth-test-docker-ca');
  signed(caPrefix, path.join(dir, 'server-key.pem'), path.join(dir, 'server-cert.pem'), '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  signed(caPrefix, path.join(clientDir, 'key.pem'), path.join(clientDir, 'cert.pem'), '/CN=berth', 'extendedKeyUsage=clientAuth\n');
  copyFileSync(`${caPrefix}.pem`, path.join(clientDir, 'ca.pem'));
  const otherCa = path.join(untrustedDir, 'other-ca');
  ca(otherCa, 'not-the-engines-ca');
  signed(otherCa, path.join(untrustedDir, 'key.pem'), path.join(untrustedDir, 'cert.pem'), '/CN=berth', 'extendedKeyUsage=clientAuth\n');
  copyFileSync(`${caPrefix}.pem`, path.join(untrustedDir, 'ca.pem'));
  return { serverCa: `${caPrefix}.pem`, serverCert: path.join(dir, 'server-cert.pem'), serverKey: path.join(dir, 'server-key.pem'), clientDir, untrustedDir };
}

async function waitForEngine(docker, child) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dockerd exited with ${child.exitCode}`);
    try {
      await docker.ping();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error('dockerd did not answer in time');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Stops dockerd by its pid (containers first, so nothing outlives it) and removes its directory when it made it. */
async function stopEngine(layout, removeDir) {
  const docker = new Docker({ socketPath: layout.socket });
  try {
    for (const c of await docker.listContainers({ all: true })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    for (const n of await docker.listNetworks()) if (!['bridge', 'host', 'none'].includes(n.Name)) await docker.getNetwork(n.Id).remove().catch(() => undefined);
  } catch {
    /* the engine is already gone */
  }
  if (layout.pid) await signalAndWait(layout.pid, 'SIGTERM');
  // Networks of an engine that stopped on its own (shutdown) keep their bridges: remove them by name.
  for (const bridge of layout.bridges ?? []) {
    try {
      execFileSync('ip', ['link', 'del', bridge], { stdio: 'ignore' });
    } catch {
      /* already gone */
    }
  }
  // dockerd leaves its exec root's mounts (netns, overlay) behind when killed hard: unmount what is under the dir.
  for (const line of readFileSync('/proc/self/mounts', 'utf8').split('\n').reverse()) {
    const mountPoint = line.split(' ')[1];
    if (mountPoint && mountPoint.startsWith(`${layout.dir}/`)) {
      try {
        execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
      } catch {
        /* already gone */
      }
    }
  }
  if (removeDir) rmSync(layout.dir, { recursive: true, force: true });
}

async function rememberBridges(layout) {
  try {
    const networks = await new Docker({ socketPath: layout.socket }).listNetworks();
    layout.bridges = networks.filter((n) => n.Driver === 'bridge' && !['bridge', 'host', 'none'].includes(n.Name)).map((n) => n.Options?.['com.docker.network.bridge.name'] ?? `br-${n.Id.slice(0, 12)}`);
  } catch {
    layout.bridges = [];
  }
}

async function signalAndWait(pid, signal) {
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && alive(pid)) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
}

/** A Debian bookworm minbase with python3, made once with debootstrap from the machine's own Debian mirror. */
function debianTarball() {
  if (existsSync(DEBIAN_TARBALL)) return DEBIAN_TARBALL;
  mkdirSync(CACHE_DIR, { recursive: true });
  const root = mkdtempSync(path.join(tmpdir(), 'berth-debootstrap-'));
  try {
    console.log('making the Debian test image with debootstrap (once; cached in /var/cache/berth-test)');
    execFileSync('debootstrap', ['--variant=minbase', '--include=python3', 'bookworm', root, debianMirror()], { stdio: ['ignore', 'ignore', 'inherit'] });
    rmSync(path.join(root, 'var/cache/apt/archives'), { recursive: true, force: true });
    addServiceDefs(root);
    const partial = `${DEBIAN_TARBALL}.partial`;
    execFileSync('tar', ['-C', root, '-cf', partial, '.']);
    renameSync(partial, DEBIAN_TARBALL);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return DEBIAN_TARBALL;
}

/** The `web` app of the labels (Backend.AI's service-def format): Python's own HTTP server on the app's port. */
export function addServiceDefs(root) {
  const dir = path.join(root, 'etc/backend.ai/service-defs');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'web.json'), JSON.stringify({ command: ['/usr/bin/python3', '-m', 'http.server', '{ports[0]}'] }) + '\n');
}

function debianMirror() {
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    if (!existsSync(file)) continue;
    const uri = /^URIs:\s*(\S+)/m.exec(readFileSync(file, 'utf8'))?.[1] ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s/m.exec(readFileSync(file, 'utf8'))?.[1];
    if (uri) return uri;
  }
  return 'http://deb.debian.org/debian';
}

/** busybox-static's applets, with `bash` a two-line script handing over to busybox's sh (the runner starts bash). */
function busyboxTarball(dir) {
  const root = path.join(dir, 'busybox-root');
  for (const sub of ['bin', 'etc', 'tmp', 'home/work', 'proc', 'dev', 'sys']) mkdirSync(path.join(root, sub), { recursive: true });
  copyFileSync('/bin/busybox', path.join(root, 'bin/busybox'));
  chmodSync(path.join(root, 'bin/busybox'), 0o755);
  const applets = execFileSync('/bin/busybox', ['--list'], { encoding: 'utf8' }).split('\n').filter((a) => a && a !== 'busybox');
  for (const applet of applets) symlinkSync('busybox', path.join(root, 'bin', applet));
  writeFileSync(path.join(root, 'bin/bash'), '#!/bin/sh\nexec /bin/sh "$@"\n', { mode: 0o755 });
  writeFileSync(path.join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  writeFileSync(path.join(root, 'etc/group'), 'root:x:0:\n');
  const tarball = path.join(dir, 'busybox.tar');
  execFileSync('tar', ['-C', root, '-cf', tarball, '.']);
  rmSync(root, { recursive: true, force: true });
  return tarball;
}

/** `docker import` with labels, through the Engine API (POST /images/create?fromSrc=-&changes=LABEL ...). */
async function importImage(socket, tarball, name, labels) {
  const docker = new Docker({ socketPath: socket });
  const [repo, tag] = name.split(':');
  const changes = Object.entries(labels).map(([k, v]) => `LABEL ${JSON.stringify(k)}=${JSON.stringify(v)}`);
  const { createReadStream } = await import('node:fs');
  const stream = await docker.importImage(createReadStream(tarball), { repo, tag, changes });
  await new Promise((resolve, reject) => docker.modem.followProgress(stream, (err) => (err ? reject(err) : resolve())));
  const info = await docker.getImage(name).inspect();
  for (const [k, v] of Object.entries(labels)) {
    if (info.Config?.Labels?.[k] !== v) throw new Error(`the imported image ${name} lacks its label ${k}`);
  }
}

export function dockerTestEnv(engine) {
  return {
    BERTH_TEST_DOCKER_HOST: engine.host,
    BERTH_TEST_DOCKER_IMAGES: JSON.stringify(engine.images),
    BERTH_TEST_DOCKER_TCP_HOST: engine.tcpHost,
    BERTH_TEST_DOCKER_TLS_DIR: engine.tlsDir,
    BERTH_TEST_DOCKER_UNTRUSTED_TLS_DIR: engine.untrustedTlsDir,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && process.argv[2] === 'start') {
  const engine = await startDockerEngine();
  for (const [k, v] of Object.entries(dockerTestEnv(engine))) console.log(`${k}='${v}'`);
  console.log(`BERTH_DOCKER_HOSTS=${engine.host}`);
  const stop = async () => {
    await engine.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  setInterval(() => undefined, 1 << 30);
}
