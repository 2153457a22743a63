/**
 * A kernel's resource statistics in the `lastStat` form of the session APIs (CONTRACT §7.2): one entry per metric,
 * `{current, unit_hint}` with decimal strings, plus `stats.max` where a peak is known. One formatter for the live
 * figures (session info, GraphQL) and the last ones stored at termination (which usage reports read).
 */
import type { KernelStats } from '../agents/agent';

type Metric = { current: string | null; unit_hint: string; stats?: { max: string | null } };
export type KernelStat = Record<string, Metric>;

const text = (value: number | null | undefined) => (value === null || value === undefined ? null : String(Math.round(value)));

export function formatKernelStat(stats: KernelStats, scratchBytes: number | null = null): KernelStat {
  return {
    mem: { current: text(stats.memoryBytes), unit_hint: 'bytes', stats: { max: text(stats.memoryPeakBytes ?? stats.memoryBytes) } },
    cpu_used: { current: text(stats.cpuUsedMs), unit_hint: 'msec' },
    pids: { current: text(stats.pids), unit_hint: 'count' },
    io_read: { current: text(stats.ioReadBytes), unit_hint: 'bytes' },
    io_write: { current: text(stats.ioWriteBytes), unit_hint: 'bytes' },
    io_scratch_size: { current: text(scratchBytes), unit_hint: 'bytes' },
  };
}

/** A number from a stored stat entry (`current`, or `stats.max`), 0 when absent. */
export function statNumber(stat: unknown, metric: string, field: 'current' | 'max' = 'current'): number {
  const entry = (stat as KernelStat | null)?.[metric];
  const value = field === 'max' ? (entry?.stats?.max ?? entry?.current) : entry?.current;
  const n = Number(value ?? 0);
  return Number.isFinite(n) ? n : 0;
}
