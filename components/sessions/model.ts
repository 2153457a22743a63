/** What the sessions pages show: the shapes the manager answers with, status groups and display helpers. */
import { onFirstUse } from '../ui/onFirstUse';

/** A row of the session list (GraphQL compute_session_list). */
export interface SessionSummary {
  id: string;
  name: string;
  type: string;
  status: string;
  status_info: string | null;
  /** Pending sessions: place in the scaling group's queue (1 = next), and an ISO time or "unknown". */
  queue_position: number | null;
  estimated_start: string | null;
  image: string;
  created_at: string;
  terminated_at: string | null;
  /** JSON text of {slot: amount}. */
  occupied_slots: string;
  cluster_size: number;
  group_name: string | null;
}

/** GET /session/{name} (CONTRACT §7.2). */
export interface SessionInfo {
  sessionId: string;
  sessionName: string;
  domainName: string;
  image: string;
  architecture: string;
  type: string;
  clusterSize: number;
  clusterMode: string;
  status: string;
  statusInfo: string;
  statusData: Record<string, unknown>;
  queuePosition: number | null;
  estimatedStart: string | null;
  occupiedSlots: Record<string, string>;
  requestedSlots: Record<string, string>;
  environ: Record<string, string>;
  creationTime: string;
  terminationTime: string | null;
  numQueriesExecuted: number;
  result: string;
  /** What the idle culler measures (issue 14): {idle_timeout?, session_lifetime?}. */
  idleChecks?: import('./TimeLeft').IdleChecks;
}

/** An app the session's image offers (GET /stream/session/{name}/apps). */
export interface ServicePort {
  name: string;
  protocol: string;
  ports: number[];
}

/** GET /session/{name}/files. */
export interface FileEntry {
  filename: string;
  mode: string;
  size: number;
  mtime: number;
}

export interface FileListing {
  files: FileEntry[];
  folder_path: string;
  errors: string;
}

/** A console item of an execution result (CONTRACT §8.1). */
export type ConsoleItem = [string, unknown];

export interface ExecutionResult {
  runId: string;
  status: 'continued' | 'waiting-input' | 'finished' | 'clean-finished' | 'build-finished' | 'exec-timeout';
  exitCode: number | null;
  console: ConsoleItem[];
  options: { is_password?: boolean } | null;
}

/** Sessions that are not over: they hold (or wait for) resources. */
export const LIVE_STATUSES = ['PENDING', 'SCHEDULED', 'PULLING', 'PREPARING', 'RUNNING', 'RESTARTING', 'RUNNING_DEGRADED', 'TERMINATING', 'ERROR'];
export const FINISHED_STATUSES = ['TERMINATED', 'CANCELLED'];
/** Statuses in which the session's kernel answers terminals, code and files. */
export const USABLE_STATUSES = ['RUNNING', 'RUNNING_DEGRADED'];

export type StatusTone = 'success' | 'info' | 'warning' | 'error' | 'default';

export function statusTone(status: string): StatusTone {
  if (status === 'RUNNING') return 'success';
  if (status === 'ERROR') return 'error';
  if (status === 'RUNNING_DEGRADED' || status === 'TERMINATING' || status === 'RESTARTING') return 'warning';
  if (FINISHED_STATUSES.includes(status)) return 'default';
  return 'info';
}

/** RUNNING_DEGRADED → Running degraded. */
export function statusLabel(status: string): string {
  const text = status.toLowerCase().replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '∞';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(value >= 10 ? 0 : 1)} ${UNITS[unit]}`;
}

/** "2 CPU · 4 GiB" from a slot map (amounts as decimal strings). */
export function formatSlots(slots: Record<string, string | number> | null | undefined): string {
  if (!slots) return '—';
  const parts: string[] = [];
  for (const [slot, raw] of Object.entries(slots)) {
    const amount = Number(raw);
    if (!Number.isFinite(amount) && raw !== 'Infinity') continue;
    if (slot === 'cpu') parts.push(`${raw === 'Infinity' ? '∞' : amount} CPU`);
    else if (slot === 'mem' || slot.endsWith('.mem')) parts.push(`${formatBytes(raw === 'Infinity' ? Infinity : amount)}${slot === 'mem' ? '' : ` ${slot}`}`);
    else if (amount > 0) parts.push(`${amount} ${slot}`);
  }
  return parts.length ? parts.join(' · ') : '—';
}

export function parseSlots(text: string | null | undefined): Record<string, string> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
  } catch {
    return {};
  }
}

const relative = onFirstUse(() => new Intl.RelativeTimeFormat('en', { numeric: 'auto' }));

/** "3 minutes ago"; `now` is passed in so server and browser render the same text. */
export function relativeTime(iso: string, now: number): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return relative().format(seconds, 'second');
  if (abs < 3600) return relative().format(Math.round(seconds / 60), 'minute');
  if (abs < 86400) return relative().format(Math.round(seconds / 3600), 'hour');
  return relative().format(Math.round(seconds / 86400), 'day');
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });
}

/** A default session name: the image's short name and a few random characters. */
export function generatedName(image: string): string {
  const base = (image.split('/').pop() ?? 'session').split(':')[0].replace(/[^\w]/g, '') || 'session';
  const suffix = Math.random().toString(36).slice(2, 8);
  return `${base}-${suffix}`;
}

export const SESSION_NAME_RULE = /^\w[\w.-]*\w$/;

export function sessionNameProblem(name: string): string | null {
  if (name.length < 4 || name.length > 64) return 'Use 4 to 64 characters.';
  if (!SESSION_NAME_RULE.test(name) || /[^\x00-\x7f]/.test(name)) return 'Use letters, digits, _, . or -, starting and ending with a letter, digit or _.';
  return null;
}

/** A pending session's place in words (the CLI says the same, server/sessions/scheduler/reasons queueWords). */
export function queueWords(position: number | null | undefined, estimatedStart: string | null | undefined): string {
  const place = position ? (position === 1 ? 'next in line' : `number ${position} in line`) : 'not in line yet';
  const start = estimatedStart && estimatedStart !== 'unknown' ? `expected to start ${new Date(estimatedStart).toLocaleString()}` : 'start time unknown';
  return `${place}; ${start}`;
}
