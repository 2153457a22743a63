// Virtual folder transfers (issue: virtual folders, performance). Berth runs as a user starts it (`npm start`'s Node
// flags, dist/server.mjs, every role) in a child process; the baseline, measured in the same run, is a bare node:http
// server (also a child process) that pipes a request body into a file on the same disk and streams a file back.
// Figures: MB/s and the ratio to the baseline for a 1 GiB upload (request-upload + tus PATCH) and download
// (request-download), zip streaming of 10,000 small files, listing 100,000 entries, and Berth's RSS (VmRSS)
// before/peak/after each phase and its growth (peak − before).
// Knobs: BENCH_STORAGE_PHASES=transfers,zip,listing (the default: all) runs only some phases;
// BENCH_STORAGE_ROLES=manager runs Berth with those roles only (a manager replica: its smaller heap is the case
// docs/architecture.md's "Transfers" describes); BENCH_CPU_PROF=DIR runs Berth with --cpu-prof into DIR;
// BENCH_NODE_ARGS adds Node flags (space-separated, e.g. --trace-gc).
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchNodeArgs, freePort, loadClient, send, startProcess, startServer } from './harness.mjs';
import { buildDashboard, buildServer, dashboardStale } from '../scripts/build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { BerthClient } = await loadClient(root);
const ACCESS_KEY = 'AKBENCH0000000000003';
const SECRET_KEY = 'benchSecretKey00000000000000000000000003';
const SIZE = Number(process.env.BENCH_STORAGE_BYTES ?? 1024 ** 3);
const ROUNDS = Number(process.env.BENCH_STORAGE_ROUNDS ?? 2);
const ZIP_FILES = 10_000;
const LIST_ENTRIES = 100_000;
const CHUNK = 8 * 1024 * 1024;
const PHASES = new Set((process.env.BENCH_STORAGE_PHASES ?? 'transfers,zip,listing').split(',').map((p) => p.trim()));
const TUS = { 'Tus-Resumable': '1.0.0' };

const MB = (bytes, ms) => bytes / 1e6 / (ms / 1000);
const mib = (bytes) => (bytes / 1024 ** 2).toFixed(0);
const growth = (run) => `+${mib(Math.max(0, run.mem.peak - run.mem.before))}`;

/** Samples a process's VmRSS every 25 ms while `work` runs. */
function rss(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(text)[1]) * 1024;
}
/** CPU seconds (user + system) a process has used: less at the mercy of a busy machine than wall time. */
function cpu(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
async function sampled(pid, work) {
  // Every run starts with the disk caught up: dirty pages an earlier run left would otherwise be written back during
  // this one, and the runs go in a fixed order (Berth's after the baseline's).
  spawnSync('sync');
  const before = rss(pid);
  const cpuBefore = cpu(pid);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rss(pid))), 25);
  const started = performance.now();
  try {
    const result = await work();
    return { ...result, ms: performance.now() - started, cpu: cpu(pid) - cpuBefore, mem: { before, peak: Math.max(peak, rss(pid)), after: 0 } };
  } finally {
    clearInterval(timer);
  }
}
async function settle(pid, run) {
  await new Promise((r) => setTimeout(r, 500));
  run.mem.after = rss(pid);
  return run;
}


function sha256File(file) {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file).on('data', (c) => hash.update(c)).on('end', () => resolve(hash.digest('hex'))).on('error', reject);
  });
}

const BASELINE = `
import http from 'node:http';
import { closeSync, createReadStream, createWriteStream, fsyncSync, openSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
const server = http.createServer(async (req, res) => {
  const params = new URL(req.url, 'http://x').searchParams;
  const file = params.get('file');
  const offset = Number(params.get('offset') ?? 0);
  if (req.method === 'PUT') {
    await pipeline(req, createWriteStream(file, { flags: offset ? 'r+' : 'w', start: offset }));
    if (params.get('sync')) {
      const fd = openSync(file, 'r+');
      fsyncSync(fd);
      closeSync(fd);
    }
    res.writeHead(204).end();
  } else {
    res.writeHead(200, { 'Content-Length': String(statSync(file).size), 'Content-Type': 'application/octet-stream' });
    await pipeline(createReadStream(file), res);
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

await buildServer();
const ROLES = process.env.BENCH_STORAGE_ROLES;
if ((!ROLES || ROLES.split(',').includes('web')) && dashboardStale()) buildDashboard();
const scratch = mkdtempSync(path.join(tmpdir(), 'berth-bench-storage-'));
const dataDir = path.join(scratch, 'data');
mkdirSync(dataDir);
const source = path.join(scratch, 'source.bin');
let berth;
let bare;
let client;
try {
  // The 1 GiB of random bytes, written in 16 MiB pieces (bounded by SIZE).
  const sourceHash = createHash('sha256');
  const fd = openSync(source, 'w');
  for (let written = 0; PHASES.has('transfers') && written < SIZE; ) {
    const piece = randomBytes(Math.min(16 * 1024 * 1024, SIZE - written));
    writeSync(fd, piece);
    sourceHash.update(piece);
    written += piece.length;
  }
  closeSync(fd);
  const expected = sourceHash.digest('hex');

  const [port, webPort, appPort] = [await freePort(), await freePort(), await freePort()];
  berth = await startServer(root, {
    ...(ROLES ? { BERTH_ROLES: ROLES } : {}), BERTH_MANAGER_PORT: String(port), BERTH_WEB_PORT: String(webPort), BERTH_APP_PORT: String(appPort),
    BERTH_DATA_DIR: dataDir, BERTH_ADMIN_ACCESS_KEY: ACCESS_KEY, BERTH_ADMIN_SECRET_KEY: SECRET_KEY, BERTH_LOG_LEVEL: 'warn', NEXT_TELEMETRY_DISABLED: '1',
  }, /Berth ready/, benchNodeArgs());
  const barePort = await freePort();
  bare = await startProcess(['--input-type=module', '-e', BASELINE], { PORT: String(barePort) });
  client = new BerthClient({ endpoint: `http://127.0.0.1:${port}`, accessKey: ACCESS_KEY, secretKey: SECRET_KEY });
  const pid = berth.child.pid;
  const barePid = bare.child.pid;

  const folder = await client.call('POST', '/folders', { body: { name: 'bench-storage' } });
  const folderRoot = path.join(dataDir, 'vfolders', 'volume1', folder.id);
  // The baseline writes into the same volume (same disk), outside the folder.
  const bareDir = path.join(dataDir, 'vfolders', 'volume1', 'bench-baseline');
  mkdirSync(bareDir);

  /** `durable`: the last PUT fsyncs the file before it answers, as Berth does when an upload completes. */
  async function bareUpload(i, chunk, durable = false) {
    const file = path.join(bareDir, `up-${i}.bin`);
    for (let offset = 0; offset < SIZE; offset += chunk) {
      const end = Math.min(SIZE, offset + chunk);
      const sync = durable && end === SIZE ? '&sync=1' : '';
      const res = await send(`http://127.0.0.1:${barePort}/?file=${encodeURIComponent(file)}&offset=${offset}${sync}`, {
        method: 'PUT', headers: { 'Content-Length': String(end - offset) }, body: createReadStream(source, { start: offset, end: end - 1 }),
      });
      if (res.status !== 204) throw new Error(`baseline upload answered ${res.status}`);
    }
    return { file };
  }
  async function bareDownload(file) {
    const res = await send(`http://127.0.0.1:${barePort}/?file=${encodeURIComponent(file)}`);
    if (res.bytes !== SIZE) throw new Error(`baseline download gave ${res.bytes} bytes`);
    return {};
  }
  async function tusUpload(remote, chunk) {
    const { token, url } = await client.call('POST', '/folders/bench-storage/request-upload', { body: { path: remote, size: SIZE } });
    const target = `${url}?token=${encodeURIComponent(token)}`;
    let offset = 0;
    for (let requests = 0; offset < SIZE && requests <= Math.ceil(SIZE / chunk); requests++) {
      const end = Math.min(SIZE, offset + chunk);
      const res = await send(target, {
        method: 'PATCH',
        headers: { ...TUS, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': String(offset), 'Content-Length': String(end - offset) },
        body: createReadStream(source, { start: offset, end: end - 1 }),
      });
      if (res.status !== 204) throw new Error(`PATCH answered ${res.status}`);
      offset = Number(res.headers['upload-offset']);
    }
    if (offset !== SIZE) throw new Error(`the upload stopped at ${offset}`);
    return {};
  }
  /** Checks an uploaded file against the source, then deletes it through the API. */
  async function removeChecked(name) {
    if ((await sha256File(path.join(folderRoot, name))) !== expected) throw new Error(`${name} differs from the source`);
    await client.call('DELETE', '/folders/bench-storage/delete-files', { body: { files: [name] } });
  }
  async function berthDownload(remote, archive = false) {
    const { token, url } = await client.call('POST', '/folders/bench-storage/request-download', { body: { path: remote, archive } });
    const res = await send(`${url}?token=${encodeURIComponent(token)}`);
    if (res.status !== 200) throw new Error(`download answered ${res.status}`);
    return { bytes: res.bytes };
  }

  const runs = { bareUp: [], bareUpDurable: [], bareUpChunked: [], bareUpChunkedDurable: [], bareDown: [], tusWhole: [], tusChunked: [], berthDown: [] };
  for (let round = 0; PHASES.has('transfers') && round < ROUNDS; round++) {
    const up = await settle(pid, await sampled(barePid, () => bareUpload(round, SIZE)));
    runs.bareUp.push(up);
    runs.bareDown.push(await settle(pid, await sampled(barePid, () => bareDownload(up.file))));
    rmSync(up.file);
    const chunked = await sampled(barePid, () => bareUpload(round, CHUNK));
    runs.bareUpChunked.push(chunked);
    if ((await sha256File(chunked.file)) !== expected) throw new Error('the chunked baseline upload differs from the source');
    rmSync(chunked.file);
    for (const [list, chunk] of [[runs.bareUpDurable, SIZE], [runs.bareUpChunkedDurable, CHUNK]]) {
      const durable = await sampled(barePid, () => bareUpload(round, chunk, true));
      list.push(durable);
      rmSync(durable.file);
    }
    // Berth's runs in the baseline's order, each upload removed before the next: a new upload then reuses the page
    // cache the last one freed, as the baseline's do. On this VM, writing into memory the guest has not touched
    // before made the kernel's copy into the page cache several times slower (bench notes in docs/architecture.md).
    const whole = `whole-${round}.bin`;
    runs.tusWhole.push(await settle(pid, await sampled(pid, () => tusUpload(whole, SIZE))));
    runs.berthDown.push(await settle(pid, await sampled(pid, () => berthDownload(whole))));
    await removeChecked(whole);
    const chunkedName = `chunked-${round}.bin`;
    runs.tusChunked.push(await settle(pid, await sampled(pid, () => tusUpload(chunkedName, CHUNK))));
    await removeChecked(chunkedName);
  }
  const best = (list) => list.reduce((a, b) => (b.ms < a.ms ? b : a));
  const memCell = (run) => `${mib(run.mem.before)} / ${mib(run.mem.peak)} / ${mib(run.mem.after)}`;

  // Zip streaming of 10,000 small files (1 KiB each, 100 directories), written straight into the folder.
  let zip;
  if (PHASES.has('zip')) {
    const zipDir = path.join(folderRoot, 'many');
    for (let d = 0; d < 100; d++) {
      mkdirSync(path.join(zipDir, `d${d}`), { recursive: true });
      for (let f = 0; f < ZIP_FILES / 100; f++) {
        const out = openSync(path.join(zipDir, `d${d}`, `f${f}.txt`), 'w');
        writeSync(out, randomBytes(512).toString('hex'));
        closeSync(out);
      }
    }
    zip = await settle(pid, await sampled(pid, () => berthDownload('many', true)));
  }

  // Listing 100,000 entries of one directory.
  let listing;
  if (PHASES.has('listing')) {
    const wide = path.join(folderRoot, 'wide');
    mkdirSync(wide);
    for (let i = 0; i < LIST_ENTRIES; i++) closeSync(openSync(path.join(wide, `entry-${String(i).padStart(6, '0')}`), 'w'));
    listing = await settle(pid, await sampled(pid, async () => {
      const res = await client.request('GET', '/folders/bench-storage/files', { query: { path: 'wide' } });
      if (res.status !== 200) throw new Error(`listing answered ${res.status}`);
      const body = res.json();
      if (JSON.parse(body.files).length !== body.items.length) throw new Error('the legacy files string differs from items');
      return { bytes: res.body.length, items: body.items.length };
    }));
    if (listing.items !== LIST_ENTRIES) throw new Error(`the listing had ${listing.items} entries`);
  }

  if (PHASES.has('transfers')) {
    console.log(`\nTransfers of ${mib(SIZE)} MiB of random bytes over loopback into the same disk (Berth's roles: ${ROLES ?? 'all'}; best of ${ROUNDS}; server CPU seconds of that run, user + system; Berth's RSS MiB before / peak / after, growth; load average ${loadavg()[0].toFixed(2)})`);
    // Berth fsyncs a completed upload before it answers (an acknowledged upload survives a crash); the plain copy
    // does not, so each upload is also set beside a plain copy that fsyncs at its end (the durable baseline).
    console.log('| case | MB/s | vs baseline | vs durable baseline | server CPU s | Berth RSS MiB | RSS growth MiB |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    const rate = (list) => MB(SIZE, best(list).ms);
    const baselineRow = (label, list) => console.log(`| ${label} | ${rate(list).toFixed(0)} | | | ${best(list).cpu.toFixed(2)} | (other process) | |`);
    const berthRow = (label, list, baseline, durable) => {
      const r = best(list);
      const vsDurable = durable ? (rate(list) / rate(durable)).toFixed(2) : '';
      console.log(`| ${label} | ${rate(list).toFixed(0)} | ${(rate(list) / rate(baseline)).toFixed(2)} | ${vsDurable} | ${r.cpu.toFixed(2)} | ${memCell(r)} | ${growth(r)} |`);
    };
    baselineRow('upload: bare node:http, one PUT → file (baseline)', runs.bareUp);
    baselineRow('upload: the same, fsynced at the end (durable baseline)', runs.bareUpDurable);
    berthRow('upload: request-upload + one tus PATCH', runs.tusWhole, runs.bareUp, runs.bareUpDurable);
    baselineRow('upload: bare node:http, PUTs of 8 MiB → file (baseline)', runs.bareUpChunked);
    baselineRow('upload: the same, fsynced at the end (durable baseline)', runs.bareUpChunkedDurable);
    berthRow('upload: request-upload + tus PATCHes of 8 MiB (the CLI)', runs.tusChunked, runs.bareUpChunked, runs.bareUpChunkedDurable);
    baselineRow('download: bare node:http file → GET (baseline)', runs.bareDown);
    berthRow('download: request-download + GET', runs.berthDown, runs.bareDown, null);
  }

  if (zip || listing) {
    console.log('\nDirectories');
    console.log('| case | ms | bytes | Berth RSS MiB | RSS growth MiB |');
    console.log('|---|---:|---:|---:|---:|');
    if (zip) console.log(`| zip stream of ${ZIP_FILES.toLocaleString('en')} files × 1 KiB (archive=true) | ${zip.ms.toFixed(0)} | ${zip.bytes} | ${memCell(zip)} | ${growth(zip)} |`);
    if (listing) console.log(`| GET /folders/{name}/files, ${LIST_ENTRIES.toLocaleString('en')} entries | ${listing.ms.toFixed(0)} | ${listing.bytes} | ${memCell(listing)} | ${growth(listing)} |`);
  }

  await client.call('DELETE', '/folders/bench-storage');
} finally {
  client?.close();
  await berth?.stop();
  await bare?.stop();
  rmSync(scratch, { recursive: true, force: true });
}
