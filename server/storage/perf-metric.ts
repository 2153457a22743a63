/**
 * `GET /folders/_/perf-metric?folder_host` (superadmin): figures measured on the volume, never invented.
 *
 * - `metric`: the activity of the volume's block device over a 0.5 s window, from /proc/diskstats (operations and
 *   bytes per second, average microseconds per operation); null when the volume is not on a block device
 *   (tmpfs, overlay, NFS).
 * - `probe`: a 4 MiB file written with fdatasync into the volume, read back, and removed: write and read
 *   throughput and their durations (the read may come from the page cache, as real reads often do).
 *
 * Answers are reused for 5 s, so the probe cannot be turned into a load generator.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { App } from '../app';
import { volumeOf, type StorageVolume } from './hosts';
import { mountOf } from './mountinfo';

const WINDOW_MS = 500;
const PROBE_BYTES = 4 * 1024 * 1024;
const CACHE_MS = 5_000;
const SECTOR = 512;

interface DiskCounters {
  reads: number;
  readSectors: number;
  readMs: number;
  writes: number;
  writeSectors: number;
  writeMs: number;
}

export interface PerfMetric {
  metric: {
    iops_read: number;
    iops_write: number;
    io_bytes_read: number;
    io_bytes_write: number;
    io_usec_read: number;
    io_usec_write: number;
  } | null;
  device: string | null;
  window_seconds: number;
  probe: {
    bytes: number;
    write_seconds: number;
    write_bytes_per_sec: number;
    read_seconds: number;
    read_bytes_per_sec: number;
  } | null;
  measured_at: string;
}

const cache = new WeakMap<App, Map<string, { at: number; value: Promise<PerfMetric> }>>();

async function diskCounters(dev: string): Promise<{ name: string; counters: DiskCounters } | null> {
  const [major, minor] = dev.split(':');
  const text = await readFile('/proc/diskstats', 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[0] !== major || f[1] !== minor) continue;
    const n = (i: number) => Number(f[i]);
    return { name: f[2], counters: { reads: n(3), readSectors: n(5), readMs: n(6), writes: n(7), writeSectors: n(9), writeMs: n(10) } };
  }
  return null;
}

async function deviceActivity(volume: StorageVolume): Promise<Pick<PerfMetric, 'metric' | 'device'>> {
  const dev = (await mountOf(volume.path))?.dev ?? null;
  const before = dev ? await diskCounters(dev) : null;
  if (!dev || !before) return { metric: null, device: null };
  const started = process.hrtime.bigint();
  await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
  const after = await diskCounters(dev);
  if (!after) return { metric: null, device: before.name };
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const d = (k: keyof DiskCounters) => Math.max(0, after.counters[k] - before.counters[k]);
  const perOp = (ms: number, ops: number) => (ops > 0 ? Math.round((ms * 1000) / ops) : 0);
  return {
    device: before.name,
    metric: {
      iops_read: d('reads') / seconds,
      iops_write: d('writes') / seconds,
      io_bytes_read: (d('readSectors') * SECTOR) / seconds,
      io_bytes_write: (d('writeSectors') * SECTOR) / seconds,
      io_usec_read: perOp(d('readMs'), d('reads')),
      io_usec_write: perOp(d('writeMs'), d('writes')),
    },
  };
}

async function probe(app: App, volume: StorageVolume): Promise<PerfMetric['probe']> {
  const file = path.join(volume.path, `.berth-perf-probe-${randomBytes(6).toString('hex')}`);
  const data = randomBytes(PROBE_BYTES);
  try {
    const writeStart = process.hrtime.bigint();
    const out = await open(file, 'wx', 0o600);
    try {
      await out.write(data);
      await out.datasync();
    } finally {
      await out.close();
    }
    const writeSeconds = Number(process.hrtime.bigint() - writeStart) / 1e9;
    const readStart = process.hrtime.bigint();
    const back = await readFile(file);
    const readSeconds = Number(process.hrtime.bigint() - readStart) / 1e9;
    if (!back.equals(data)) throw new Error('the probe read back different bytes');
    return {
      bytes: PROBE_BYTES,
      write_seconds: writeSeconds,
      write_bytes_per_sec: PROBE_BYTES / writeSeconds,
      read_seconds: readSeconds,
      read_bytes_per_sec: PROBE_BYTES / readSeconds,
    };
  } catch (err) {
    app.log.warn({ err, host: volume.host }, 'the storage probe failed');
    return null;
  } finally {
    await unlink(file).catch(() => undefined);
  }
}

async function measure(app: App, volume: StorageVolume): Promise<PerfMetric> {
  const activity = await deviceActivity(volume);
  return { ...activity, window_seconds: WINDOW_MS / 1000, probe: await probe(app, volume), measured_at: new Date().toISOString() };
}

export async function perfMetric(app: App, folderHost: string): Promise<PerfMetric> {
  const volume = volumeOf(app, folderHost, 'folder_host');
  let byHost = cache.get(app);
  if (!byHost) cache.set(app, (byHost = new Map()));
  const cached = byHost.get(volume.host);
  if (cached && Date.now() - cached.at < CACHE_MS) return cached.value;
  const value = measure(app, volume);
  byHost.set(volume.host, { at: Date.now(), value });
  value.catch(() => byHost!.delete(volume.host));
  return value;
}
