/**
 * The statistics page's arithmetic, free of React so it can be unit-tested: the 15-minute bins of
 * `/resource/stats/*\/month` cut to the chosen range (and merged into coarser points for long ranges), the
 * per-project usage rows of `/resource/usage/period`, and their CSV export.
 */

type Figure = { value: number; unit_hint: 'count' | 'bytes' };

/** One 15-minute bin as the manager sends it; `date` in seconds since the epoch. */
export interface StatBin {
  date: number;
  num_sessions: Figure;
  cpu_allocated: Figure;
  mem_allocated: Figure;
  gpu_allocated: Figure;
  io_read_bytes: Figure;
  io_write_bytes: Figure;
  disk_used: Figure;
}

export type StatField = Exclude<keyof StatBin, 'date'>;

/** The charts, in the order shown; bytes are drawn in binary units. */
export const STAT_CHARTS: { title: string; fields: { field: StatField; label: string }[]; unit: 'count' | 'bytes' }[] = [
  { title: 'Sessions', fields: [{ field: 'num_sessions', label: 'Sessions' }], unit: 'count' },
  { title: 'CPU cores', fields: [{ field: 'cpu_allocated', label: 'CPU cores' }], unit: 'count' },
  { title: 'Memory', fields: [{ field: 'mem_allocated', label: 'Memory' }], unit: 'bytes' },
  { title: 'GPUs', fields: [{ field: 'gpu_allocated', label: 'GPUs' }], unit: 'count' },
  { title: 'I/O', fields: [{ field: 'io_read_bytes', label: 'Read' }, { field: 'io_write_bytes', label: 'Written' }], unit: 'bytes' },
  { title: 'Scratch disk', fields: [{ field: 'disk_used', label: 'Disk used' }], unit: 'bytes' },
];

export type StatRange = 'day' | 'week' | 'month';

export const RANGE_DAYS: Record<StatRange, number> = { day: 1, week: 7, month: 30 };

/**
 * Bins per point drawn: a day shows every 15-minute bin (96 points), a week hourly (168), a month every 4 hours
 * (180), so no chart draws 2,880 points. A merged point holds the largest value of its bins (peak usage).
 */
export const RANGE_STEP: Record<StatRange, number> = { day: 1, week: 4, month: 16 };

export interface StatPoint {
  date: Date;
  values: Record<StatField, number>;
}

const FIELDS: StatField[] = ['num_sessions', 'cpu_allocated', 'mem_allocated', 'gpu_allocated', 'io_read_bytes', 'io_write_bytes', 'disk_used'];

/** The bins of the last `range` (bins are oldest first; the newest holds now), merged by RANGE_STEP. */
export function statPoints(bins: StatBin[], range: StatRange): StatPoint[] {
  const wanted = RANGE_DAYS[range] * 96;
  const recent = bins.slice(Math.max(0, bins.length - wanted));
  const step = RANGE_STEP[range];
  const points: StatPoint[] = [];
  for (let i = 0; i < recent.length; i += step) {
    const group = recent.slice(i, i + step);
    const values = {} as Record<StatField, number>;
    for (const field of FIELDS) values[field] = Math.max(...group.map((bin) => bin[field]?.value ?? 0));
    points.push({ date: new Date(group[0].date * 1000), values });
  }
  return points;
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** Bytes in binary units with the locale's digits, e.g. "1.5 GiB" (en) or "1,5 GiB" (de). */
export function formatBytesLocale(bytes: number, locale?: string): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)} ${BYTE_UNITS[unit]}`;
}

export function formatCountLocale(n: number, locale?: string): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(n);
}

/** A project's block of `/resource/usage/period` (only the fields the table shows). */
export interface ProjectUsage {
  domain_name: string;
  g_id: string;
  g_name: string;
  g_cpu_allocated: number;
  g_mem_allocated: number;
  g_gpu_allocated: number;
  g_io_read: number;
  g_io_write: number;
  g_disk_used: number;
  c_infos: unknown[];
}

export interface UsageRow {
  project: string;
  domain: string;
  sessions: number;
  cpu: number;
  memBytes: number;
  gpu: number;
  ioReadBytes: number;
  ioWriteBytes: number;
  diskBytes: number;
}

export function usageRows(blocks: ProjectUsage[]): UsageRow[] {
  return blocks.map((b) => ({
    project: b.g_name,
    domain: b.domain_name,
    sessions: b.c_infos.length,
    cpu: b.g_cpu_allocated,
    memBytes: b.g_mem_allocated,
    gpu: b.g_gpu_allocated,
    ioReadBytes: b.g_io_read,
    ioWriteBytes: b.g_io_write,
    diskBytes: b.g_disk_used,
  }));
}

/**
 * One CSV cell (RFC 4180). A text starting with =, +, -, @ (or a tab or carriage return) would run as a formula in
 * a spreadsheet (CSV injection): it is prefixed with an apostrophe, as OWASP advises. Numbers are written as they
 * are, so a negative figure stays a number.
 */
export function csvCell(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const USAGE_CSV_HEADER = ['Project', 'Domain', 'Containers', 'CPU allocated', 'Memory allocated (bytes)', 'GPU allocated', 'I/O read (bytes)', 'I/O written (bytes)', 'Disk used (bytes)'];

/** The usage table as CSV, header first, CRLF line ends (what spreadsheets expect). */
export function usageCsv(rows: UsageRow[]): string {
  const lines = [USAGE_CSV_HEADER, ...rows.map((r) => [r.project, r.domain, r.sessions, r.cpu, r.memBytes, r.gpu, r.ioReadBytes, r.ioWriteBytes, r.diskBytes])];
  return lines.map((line) => line.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/** A date as the manager's YYYYMMDD for `/resource/usage/period`, from an <input type="date"> value (YYYY-MM-DD). */
export function compactDate(isoDate: string): string {
  return isoDate.replaceAll('-', '');
}
