/** Reading what the Engine API sends: multiplexed container logs and one-shot container stats. */
import type { KernelStats } from '../agent';

/**
 * The text of a non-TTY container's log: frames of an 8-byte header (stream, 3 zero bytes, big-endian length) and
 * their payload, stdout and stderr interleaved as written. Anything that is not framed is returned as it is.
 */
export function demuxLogs(raw: Buffer | string): string {
  const buffer = typeof raw === 'string' ? Buffer.from(raw, 'binary') : raw;
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const stream = buffer[offset];
    if (stream > 2 || buffer[offset + 1] !== 0 || buffer[offset + 2] !== 0 || buffer[offset + 3] !== 0) return buffer.toString('utf8');
    const length = buffer.readUInt32BE(offset + 4);
    parts.push(buffer.subarray(offset + 8, offset + 8 + length));
    offset += 8 + length;
  }
  return Buffer.concat(parts).toString('utf8');
}

interface RawStats {
  memory_stats?: { usage?: number; max_usage?: number; stats?: Record<string, number> };
  cpu_stats?: { cpu_usage?: { total_usage?: number } };
  pids_stats?: { current?: number };
  blkio_stats?: { io_service_bytes_recursive?: { op: string; value: number }[] | null };
}

export function statsFrom(raw: unknown): KernelStats {
  const s = raw as RawStats;
  const io = s.blkio_stats?.io_service_bytes_recursive ?? [];
  const sum = (op: string) => (io.length ? io.filter((e) => e.op.toLowerCase() === op).reduce((n, e) => n + e.value, 0) : null);
  const usage = s.memory_stats?.usage ?? null;
  return {
    memoryBytes: usage,
    // cgroup v2 has no max_usage: the current usage is the best known peak.
    memoryPeakBytes: s.memory_stats?.max_usage ?? usage,
    cpuUsedMs: s.cpu_stats?.cpu_usage?.total_usage !== undefined ? Math.round(s.cpu_stats.cpu_usage.total_usage / 1e6) : null,
    pids: s.pids_stats?.current ?? null,
    ioReadBytes: sum('read'),
    ioWriteBytes: sum('write'),
  };
}
