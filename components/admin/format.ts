/**
 * How amounts read for a person: resource slots (CONTRACT §1.6: decimal strings, "Infinity" for no limit, "NaN"
 * for a figure the operator does not show), byte sizes in binary units, and times.
 */
import { onFirstUse } from '../ui/onFirstUse';

export type SlotUnit = 'count' | 'bytes';
export type SlotUnits = Record<string, SlotUnit>;

const SLOT_LABELS: Record<string, string> = {
  cpu: 'CPU',
  mem: 'Memory',
  'cuda.shares': 'GPU (fractional)',
  'cuda.device': 'GPU',
  'cuda.mem': 'GPU memory',
  'rocm.device': 'ROCm GPU',
  'tpu.device': 'TPU',
};

export function slotLabel(slot: string): string {
  return SLOT_LABELS[slot] ?? slot;
}

/** Byte slots when the manager's unit list does not name the slot. */
function guessUnit(slot: string): SlotUnit {
  return slot === 'mem' || slot.endsWith('.mem') || slot.endsWith('_mem') ? 'bytes' : 'count';
}

export function unitOf(slot: string, units?: SlotUnits): SlotUnit {
  return units?.[slot] ?? guessUnit(slot);
}

/** A slot's amount as a number: Infinity for "Infinity", NaN for "NaN" or anything unreadable. */
export function slotNumber(value: string | number | null | undefined): number {
  if (value === null || value === undefined || value === '') return NaN;
  if (typeof value === 'number') return value;
  if (value === 'Infinity') return Infinity;
  return Number(value);
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 || Number.isInteger(value) ? 0 : 1;
  return `${value.toFixed(digits)} ${BYTE_UNITS[unit]}`;
}

function formatCount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/\.?0+$/, '');
}

/** "Unlimited" for Infinity, "—" for NaN, bytes in binary units, counts as plain numbers. */
export function formatSlot(slot: string, value: string | number | null | undefined, units?: SlotUnits): string {
  const n = slotNumber(value);
  if (n === Infinity) return 'Unlimited';
  if (Number.isNaN(n)) return '—';
  return unitOf(slot, units) === 'bytes' ? formatBytes(n) : formatCount(n);
}

/** Slots in display order: CPU, memory, then the rest alphabetically. */
export function orderSlots(slots: Iterable<string>): string[] {
  const rank = (s: string) => (s === 'cpu' ? 0 : s === 'mem' ? 1 : 2);
  return [...new Set(slots)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Share of `limit` used, 0–100, or null when there is no finite limit. */
export function usedPercent(used: string | number | undefined, limit: string | number | undefined): number | null {
  const u = slotNumber(used);
  const l = slotNumber(limit);
  if (!Number.isFinite(l) || !Number.isFinite(u)) return null;
  if (l <= 0) return u > 0 ? 100 : 0;
  return Math.min(100, Math.max(0, (u / l) * 100));
}

const dateTime = onFirstUse(() => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }));

export function formatDateTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = value instanceof Date ? value : new Date(typeof value === 'number' ? value : value);
  return Number.isNaN(date.getTime()) ? '—' : dateTime().format(date);
}

/** "3 minutes ago", "in 2 days". */
export function formatRelative(value: string | number | Date | null | undefined, now = Date.now()): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = value instanceof Date ? value : new Date(value);
  const seconds = Math.round((date.getTime() - now) / 1000);
  if (Number.isNaN(seconds)) return '—';
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const steps: [Intl.RelativeTimeFormatUnit, number][] = [
    ['year', 365 * 86400],
    ['month', 30 * 86400],
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
  ];
  for (const [unit, size] of steps) if (Math.abs(seconds) >= size) return rtf.format(Math.round(seconds / size), unit);
  return rtf.format(seconds, 'second');
}
