// A throwaway Slurm cluster on this machine (Debian's slurm-wlm 22.05 and munge), for the test command and benches:
// munge, slurmctld and one slurmd per compute node, each node in its own network namespace with its own address and
// hostname on a bridge (PLATFORM.md's Slurm recipe). Needs root (namespaces, bridge).
//   node scripts/slurm-cluster.mjs start    prints the environment to use, runs until SIGINT/SIGTERM, then stops
//
// Names and addresses are fixed (bridge berth-slurm0 at 10.77.0.1/24, node N in namespace berth-nodeN at
// 10.77.0.(10+N)), so one cluster runs at a time on a machine: a lock file names the owning process; a second start
// waits for it, and the leftovers of a crashed run (daemons, namespaces, veths, bridge) are removed first.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const BRIDGE = 'berth-slurm0';
const SUBNET = '10.77.0';
const BRIDGE_ADDR = `${SUBNET}.1`;
const PARTITION = 'berth';
const LOCK = '/run/berth-slurm-cluster.json';
const NETNS_DIR = '/var/run/netns';
// Completed jobs stay visible in `scontrol show job` this long (there is no slurmdbd, so no sacct).
const MIN_JOB_AGE_S = 30;
const READY_TIMEOUT_MS = 60_000;

const nodeName = (i) => `node${i}`;
const netnsOf = (name) => `berth-${name}`;
const vethOf = (name) => `bsv-${name}`;

/**
 * Starts the cluster and waits until every node is IDLE. `dir` (optional) holds every file of the cluster (config,
 * munge key and socket, state, spool, logs, pid files); a temporary one is made and removed when not given.
 */
export async function startSlurmCluster({ nodes = 2, cpusPerNode = 4, memPerNodeMb = 4000, dir } = {}) {
  if (process.getuid?.() !== 0) throw new Error('the Slurm test cluster needs root (network namespaces, a bridge)');
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 200) throw new Error(`nodes must be 1..200, not ${nodes}`);
  await acquireLock();
  const ownDir = !dir;
  const base = dir ?? mkdtempSync(path.join(tmpdir(), 'berth-slurm-'));
  const names = Array.from({ length: nodes }, (_, i) => nodeName(i + 1));
  const layout = { dir: base, ownDir, names, pids: {} };
  writeLock(layout);
  try {
    return await bringUp(layout, { cpusPerNode, memPerNodeMb });
  } catch (err) {
    await tearDown(layout);
    throw err;
  }
}

async function bringUp(layout, { cpusPerNode, memPerNodeMb }) {
  const { dir, names } = layout;
  for (const sub of ['state', 'spool', 'log', 'run', 'munge']) mkdirSync(path.join(dir, sub), { recursive: true, mode: 0o700 });
  const munge = startMunge(dir);
  layout.pids.munged = munge.pid;
  const [ctldPort, slurmdPort] = await freePorts(2);
  const conf = path.join(dir, 'slurm.conf');
  writeFileSync(conf, slurmConf({ dir, names, cpusPerNode, memPerNodeMb, ctldPort, slurmdPort, mungeSocket: munge.socket }));
  const env = { SLURM_CONF: conf };

  ip(['link', 'add', BRIDGE, 'type', 'bridge']);
  ip(['addr', 'add', `${BRIDGE_ADDR}/24`, 'dev', BRIDGE]);
  ip(['link', 'set', BRIDGE, 'up']);
  const nodeList = names.map((name, i) => ({ name, addr: `${SUBNET}.${11 + i}` }));
  for (const node of nodeList) addNamespace(node);
  await waitForSocket(munge.socket, munge.child, 'munged', path.join(dir, 'log', 'munged.log'));

  layout.pids.slurmctld = daemon('slurmctld', ['-D', '-i', '-f', conf], path.join(dir, 'log', 'slurmctld.out')).pid;
  await waitFor(() => scontrolOk(env), READY_TIMEOUT_MS, () => `slurmctld did not answer:\n${tail(path.join(dir, 'log', 'slurmctld.log'))}`);
  for (const { name } of nodeList) layout.pids[`slurmd-${name}`] = startSlurmd(conf, name).pid;
  await waitForNodes(env, dir, names, (state) => state === 'IDLE');

  const known = (name) => {
    if (!names.includes(name)) throw new Error(`no node ${name}`);
    return name;
  };
  return {
    conf,
    partition: PARTITION,
    nodes: nodeList,
    bridgeAddr: BRIDGE_ADDR,
    env,
    dir,
    killNode: (name) => killSlurmNode(known(name)),
    startNode: (name) => startSlurmNode(conf, known(name)),
    stop: () => tearDown(layout),
  };
}

/**
 * Simulates a node crash: SIGKILLs the node's slurmd and every process in its network namespace (its jobs). Works
 * from any process (a test runs in another process than the one that started the cluster).
 */
export function killSlurmNode(name) {
  killNamespace(netnsOf(name));
}

/** Starts a killed node's slurmd again and waits until Slurm has it back in service (ReturnToService=2). */
export async function startSlurmNode(conf, name) {
  if (!existsSync(path.join(NETNS_DIR, netnsOf(name)))) throw new Error(`no node ${name}`);
  startSlurmd(conf, name);
  await waitForNodes({ SLURM_CONF: conf }, path.dirname(conf), [name], (state) => !/DOWN|NOT_RESPONDING|\*|UNKNOWN|DRAIN|FAIL/.test(state));
}

/** The environment the Slurm tests read: the cluster's slurm.conf and its nodes as JSON ([{ name, addr }]). */
export function slurmTestEnv(cluster) {
  return { BERTH_TEST_SLURM_CONF: cluster.conf, BERTH_TEST_SLURM_NODES: JSON.stringify(cluster.nodes) };
}

function slurmConf({ dir, names, cpusPerNode, memPerNodeMb, ctldPort, slurmdPort, mungeSocket }) {
  const p = (...parts) => path.join(dir, ...parts);
  const nodeLines = names.map((name, i) =>
    `NodeName=${name} NodeAddr=${SUBNET}.${11 + i} NodeHostname=${name} CPUs=${cpusPerNode} RealMemory=${memPerNodeMb} State=UNKNOWN`);
  return [
    'ClusterName=berth',
    // slurmctld only starts on the host named here; the nodes reach it on the bridge.
    `SlurmctldHost=${hostname().split('.')[0]}(${BRIDGE_ADDR})`,
    `SlurmctldPort=${ctldPort}`,
    `SlurmdPort=${slurmdPort}`,
    'AuthType=auth/munge',
    'CredType=cred/munge',
    `AuthInfo=socket=${mungeSocket}`,
    'SlurmUser=root',
    'SlurmdUser=root',
    `StateSaveLocation=${p('state')}`,
    `SlurmdSpoolDir=${p('spool', '%n')}`,
    `SlurmctldPidFile=${p('run', 'slurmctld.pid')}`,
    `SlurmdPidFile=${p('run', 'slurmd-%n.pid')}`,
    `SlurmctldLogFile=${p('log', 'slurmctld.log')}`,
    `SlurmdLogFile=${p('log', 'slurmd-%n.log')}`,
    'SlurmctldDebug=info',
    'SlurmdDebug=info',
    'ProctrackType=proctrack/linuxproc',
    'TaskPlugin=task/none',
    'MpiDefault=none',
    'SwitchType=switch/none',
    'SelectType=select/cons_tres',
    'SelectTypeParameters=CR_Core_Memory',
    `DefMemPerCPU=${Math.floor(memPerNodeMb / cpusPerNode)}`,
    'AccountingStorageType=accounting_storage/none',
    'JobAcctGatherType=jobacct_gather/none',
    'JobCompType=jobcomp/none',
    // Nodes declare more CPUs and memory than this machine has.
    'SlurmdParameters=config_overrides',
    'ReturnToService=2',
    'SlurmdTimeout=10',
    'SlurmctldTimeout=10',
    'InactiveLimit=0',
    'KillWait=2',
    `MinJobAge=${MIN_JOB_AGE_S}`,
    ...nodeLines,
    `PartitionName=${PARTITION} Nodes=${names.join(',')} Default=YES MaxTime=INFINITE State=UP`,
    '',
  ].join('\n');
}

function startMunge(dir) {
  const key = path.join(dir, 'munge', 'munge.key');
  writeFileSync(key, randomBytes(1024), { mode: 0o400 });
  const socket = path.join(dir, 'munge', 'munge.socket');
  const child = daemon('munged', [
    '--foreground', '--force', '--socket', socket, '--key-file', key,
    '--log-file', path.join(dir, 'log', 'munged.log'), '--pid-file', path.join(dir, 'run', 'munged.pid'),
    '--seed-file', path.join(dir, 'munge', 'munge.seed'),
  ], path.join(dir, 'log', 'munged.out'));
  return { child, socket, pid: child.pid };
}

// slurmd runs in the node's network namespace and in a UTS namespace of its own, so `hostname` in a job says the
// node's name. nsenter, not `ip netns exec` (which remounts /sys, and slurmd then finds no cgroup file system).
// The shell only sets the hostname; every value is an argument, nothing is interpolated into its script.
function startSlurmd(conf, name) {
  return daemon('nsenter', [
    `--net=${path.join(NETNS_DIR, netnsOf(name))}`, 'unshare', '--uts', 'sh', '-c', 'hostname "$1" && shift && exec "$@"', 'sh',
    name, 'slurmd', '-D', '-N', name, '-f', conf,
  ], path.join(path.dirname(conf), 'log', `slurmd-${name}.out`));
}

/** A daemon in the foreground, in its own process group (a Ctrl-C at the terminal reaches only us; stop() stops it). */
function daemon(command, args, outFile) {
  const out = openSync(outFile, 'a');
  try {
    const child = spawn(command, args, { detached: true, stdio: ['ignore', out, out] });
    child.on('error', (err) => (child.spawnError = err));
    child.unref();
    return child;
  } finally {
    closeSync(out);
  }
}

function addNamespace({ name, addr }) {
  const ns = netnsOf(name);
  const veth = vethOf(name);
  ip(['netns', 'add', ns]);
  ip(['link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
  ip(['link', 'set', veth, 'master', BRIDGE]);
  ip(['link', 'set', veth, 'up']);
  ip(['-n', ns, 'addr', 'add', `${addr}/24`, 'dev', 'eth0']);
  ip(['-n', ns, 'link', 'set', 'eth0', 'up']);
  ip(['-n', ns, 'link', 'set', 'lo', 'up']);
}

function ip(args) {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function ipQuiet(args) {
  try {
    ip(args);
  } catch {
    // already gone
  }
}

// ---- waiting

async function waitForNodes(env, dir, names, ready) {
  let last = '';
  await waitFor(async () => {
    last = await run('scontrol', ['show', 'node', '-o'], env).catch((err) => String(err.message));
    const states = new Map(last.split('\n').map((line) => [/^NodeName=(\S+)/.exec(line)?.[1], /\bState=(\S+)/.exec(line)?.[1]]));
    return names.every((name) => states.has(name) && ready(states.get(name)));
  }, READY_TIMEOUT_MS, () => `nodes ${names.join(', ')} not ready:\n${last}\n${names.map((n) => tail(path.join(dir, 'log', `slurmd-${n}.log`))).join('\n')}`);
}

async function scontrolOk(env) {
  return run('scontrol', ['ping'], env).then((out) => /is UP/.test(out), () => false);
}

async function waitForSocket(socket, child, what, log) {
  await waitFor(() => existsSync(socket) || child.exitCode !== null, 10_000, () => `${what} did not start:\n${tail(log)}`);
  if (child.exitCode !== null) throw new Error(`${what} ${child.spawnError?.message ?? `exited with ${child.exitCode}`}:\n${tail(log)}`);
}

async function waitFor(check, timeoutMs, describe) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(200);
  }
  throw new Error(describe());
}

function run(command, args, env) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env: { ...process.env, ...env }, timeout: 10_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} ${args.join(' ')}: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}

// ---- stopping and cleaning up

/** Stops everything `layout` started (or a crashed run left): daemons, namespaces, veths, bridge, files, lock. */
async function tearDown(layout) {
  // (A run that crashed right after taking the lock recorded no directory yet.)
  const pidOf = (file) => (layout.dir ? readPid(path.join(layout.dir, 'run', file)) : null);
  // Compute nodes first (their jobs with them), then the controller, then munge.
  const slurmds = layout.names.flatMap((n) => [pidOf(`slurmd-${n}.pid`), layout.pids[`slurmd-${n}`]]);
  await stopPids(slurmds, ['slurmd']);
  for (const name of layout.names) killNamespace(netnsOf(name));
  await stopPids([pidOf('slurmctld.pid'), layout.pids.slurmctld], ['slurmctld']);
  await stopPids([pidOf('munged.pid'), layout.pids.munged], ['munged']);
  removeNetwork(layout.names);
  if (layout.ownDir && layout.dir) rmSync(layout.dir, { recursive: true, force: true });
  releaseLock();
}

function removeNetwork(names) {
  for (const name of names) {
    ipQuiet(['link', 'del', vethOf(name)]);
    ipQuiet(['netns', 'del', netnsOf(name)]);
  }
  ipQuiet(['link', 'del', BRIDGE]);
}

/** SIGTERM, then SIGKILL after a grace period; only pids that still run the expected program (pids get reused). */
async function stopPids(pids, programs) {
  const live = () => [...new Set(pids.filter((pid) => pid && running(pid) && programs.includes(commOf(pid))))];
  for (const pid of live()) signal(pid, 'SIGTERM');
  const deadline = Date.now() + 5_000;
  while (live().length && Date.now() < deadline) await sleep(100);
  for (const pid of live()) signal(pid, 'SIGKILL');
  while (live().length && Date.now() < deadline + 2_000) await sleep(50);
}

/** SIGKILLs every process in a network namespace (a node's slurmd, slurmstepds and job processes) until none is left. */
function killNamespace(ns) {
  let inode;
  try {
    inode = statSync(path.join(NETNS_DIR, ns)).ino;
  } catch {
    return;
  }
  for (let round = 0; round < 50; round++) {
    const pids = pidsInNetns(inode);
    if (!pids.length) return;
    for (const pid of pids) signal(pid, 'SIGKILL');
    execFileSync('sleep', ['0.05']);
  }
}

function pidsInNetns(inode) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/ns/net`) === `net:[${inode}]` && !zombie(Number(entry))) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

function running(pid) {
  try {
    process.kill(pid, 0);
    return !zombie(pid);
  } catch {
    return false;
  }
}

// A child we spawned and that exited stays a zombie until Node reaps it; it counts as stopped.
function zombie(pid) {
  try {
    return /^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

function commOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

function signal(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

function readPid(file) {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 1 ? pid : null;
  } catch {
    return null;
  }
}

// ---- one cluster per machine

async function acquireLock() {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const held = readLock();
    if (!held) break;
    if (held.owner !== process.pid && running(held.owner) && (held.ownerStart === undefined || startTimeOf(held.owner) === held.ownerStart)) {
      if (Date.now() > deadline) throw new Error(`a Slurm test cluster is in use by process ${held.owner} (${LOCK})`);
      await sleep(1_000);
      continue;
    }
    // Left by a run that crashed: clean up what it recorded.
    await tearDown({ dir: held.dir, ownDir: held.ownDir, names: held.names ?? [], pids: held.pids ?? {} });
    rmSync(LOCK, { force: true });
    break;
  }
  // Namespaces or a bridge of the same names with no lock (a crash before the lock was written, or older code).
  const strays = existsSync(NETNS_DIR) ? readdirSync(NETNS_DIR).filter((n) => /^berth-node\d+$/.test(n)) : [];
  for (const ns of strays) killNamespace(ns);
  removeNetwork(strays.map((ns) => ns.slice('berth-'.length)));
  try {
    writeFileSync(LOCK, JSON.stringify({ owner: process.pid, ownerStart: startTimeOf(process.pid) }), { flag: 'wx' });
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
    return acquireLock(); // another start got there first
  }
}

function readLock() {
  try {
    return JSON.parse(readFileSync(LOCK, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    return { owner: 0 }; // unreadable: treat as stale
  }
}

function writeLock(layout) {
  writeFileSync(LOCK, JSON.stringify({ owner: process.pid, ownerStart: startTimeOf(process.pid), ...layout }));
}

// A process's start time (clock ticks since boot): with the pid it names one process, whatever pids get reused.
function startTimeOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function releaseLock() {
  if (readLock()?.owner === process.pid) rmSync(LOCK, { force: true });
}

// ---- small helpers

function freePorts(count) {
  return Promise.all(Array.from({ length: count }, () => new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '0.0.0.0', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  })));
}

function tail(file, lines = 15) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return `(no ${path.basename(file)})`;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- CLI

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  if (process.argv[2] !== 'start') {
    console.error('usage: node scripts/slurm-cluster.mjs start');
    process.exit(2);
  }
  // A signal while starting stops the cluster once it is up (start cleans up after itself if it fails).
  let stopRequested = false;
  let stop = () => (stopRequested = true);
  process.on('SIGINT', () => stop());
  process.on('SIGTERM', () => stop());
  const started = Date.now();
  const cluster = await startSlurmCluster();
  console.log(`Slurm cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s (${cluster.nodes.map((n) => `${n.name} ${n.addr}`).join(', ')}); Ctrl-C stops it.`);
  console.log(`export SLURM_CONF=${cluster.conf}`);
  for (const [key, value] of Object.entries(slurmTestEnv(cluster))) console.log(`export ${key}='${value}'`);
  let stopping = false;
  stop = async () => {
    if (stopping) return;
    stopping = true;
    await cluster.stop();
    process.exit(0);
  };
  if (stopRequested) await stop();
  setInterval(() => {}, 1 << 30);
}
