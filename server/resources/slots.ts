/**
 * Resource slots: which slots the cluster knows, what unit each counts in, and the arithmetic on slot maps.
 * Amounts are plain numbers inside the manager and decimal strings on the wire (CONTRACT §1.6).
 */
import type { App } from '../app';

export type SlotType = 'count' | 'bytes';

/** Slot name → amount. A missing slot means zero (usage) or unset (limits), as each caller says. */
export type Amounts = Record<string, number>;

/** Accelerator slots whose amounts count as GPU allocation in usage reports. */
const GPU_SLOTS = ['cuda.device', 'cuda.shares', 'rocm.device', 'tpu.device'];

/** How many GPU units a slot map holds, whatever the accelerator. */
export function gpuAmount(slots: Amounts): number {
  return GPU_SLOTS.reduce((sum, slot) => sum + (slots[slot] ?? 0), 0);
}

/** cpu and mem exist on every agent; accelerators appear when an agent reports them. */
export const BASE_SLOTS: Record<string, SlotType> = { cpu: 'count', mem: 'bytes' };

/** Memory-like slots (`mem`, `cuda.mem`, …) count bytes; every other slot counts units. */
export function slotType(name: string): SlotType {
  return name === 'mem' || name.endsWith('.mem') || name.endsWith('.memory') ? 'bytes' : 'count';
}

/**
 * The slots active in the cluster: the base slots plus every slot an ALIVE agent reports, optionally only
 * the agents of one scaling group. Sorted by name after the base slots, so answers are stable.
 */
export async function activeSlots(app: App, scalingGroup?: string): Promise<Record<string, SlotType>> {
  let query = app.db.selectFrom('agents').select('available_slots').where('status', '=', 'ALIVE');
  if (scalingGroup !== undefined) query = query.where('scaling_group', '=', scalingGroup);
  const reported = new Set<string>();
  for (const row of await query.execute()) {
    for (const name of Object.keys(row.available_slots ?? {})) reported.add(name);
  }
  const slots: Record<string, SlotType> = { ...BASE_SLOTS };
  for (const name of [...reported].sort()) slots[name] ??= slotType(name);
  return slots;
}

const BINARY_SUFFIX = /^([0-9]*\.?[0-9]+)\s*([kmgtpe])(?:i?b?)?$/i;
const POWERS: Record<string, number> = { k: 1, m: 2, g: 3, t: 4, p: 5, e: 6 };

/** Reads a stored or given amount: a number, a decimal string, "Infinity", or a size with a binary suffix. */
export function parseAmount(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return NaN;
  const text = value.trim();
  if (text === '') return NaN;
  if (/^infinity$/i.test(text)) return Infinity;
  const plain = Number(text);
  if (!Number.isNaN(plain)) return plain;
  const match = BINARY_SUFFIX.exec(text);
  return match ? Number(match[1]) * 1024 ** POWERS[match[2].toLowerCase()] : NaN;
}

/** Reads a slot map; entries that are not amounts are dropped. */
export function toAmounts(slots: Record<string, unknown> | null | undefined): Amounts {
  const out: Amounts = {};
  for (const [name, value] of Object.entries(slots ?? {})) {
    const amount = parseAmount(value);
    if (!Number.isNaN(amount)) out[name] = amount;
  }
  return out;
}

/** Writes an amount as the wire's decimal string: "Infinity", "NaN", or digits (fractions to 6 places). */
export function formatAmount(amount: number): string {
  if (Number.isNaN(amount)) return 'NaN';
  if (!Number.isFinite(amount)) return amount > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(amount)) return BigInt(amount).toString();
  return String(Math.round(amount * 1e6) / 1e6);
}

/** The wire form of a slot map, restricted to (and filled out over) the given slot names. */
export function formatSlots(amounts: Amounts, slots: Iterable<string>, missing = 0): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of slots) out[name] = formatAmount(amounts[name] ?? missing);
  return out;
}

export function addAmounts(into: Amounts, more: Amounts): Amounts {
  for (const [name, value] of Object.entries(more)) into[name] = (into[name] ?? 0) + value;
  return into;
}

/** `limit − used` per slot, never below zero; an unset limit is unlimited. */
export function remainder(limits: Amounts, used: Amounts, slots: Iterable<string>): Amounts {
  const out: Amounts = {};
  for (const name of slots) out[name] = Math.max(0, (limits[name] ?? Infinity) - (used[name] ?? 0));
  return out;
}

/** Whether `available` holds `wanted` in every slot (a slot absent from `available` holds nothing). */
export function fits(wanted: Amounts, available: Amounts): boolean {
  return Object.entries(wanted).every(([name, amount]) => amount <= 0 || amount <= (available[name] ?? 0));
}
