/** Validation of the structured inputs mutations take: resource slots, byte sizes, host permissions, IP lists, names. */
import { isIP } from 'node:net';
import { ALL_HOST_PERMISSIONS } from '../accounts/bootstrap';
import type { Slots } from '../db/schema';
import { badRequest as invalid } from '../http/problem';

const BINARY_UNITS: Record<string, number> = { '': 0, k: 1, m: 2, g: 3, t: 4, p: 5, e: 6 };

/** Bytes in a size such as `1g`, `512MiB`, `1073741824` (CONTRACT §1.6: powers of 1024); null if not one. */
export function parseBinarySize(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
  if (typeof value !== 'string') return null;
  const match = /^(\d+(?:\.\d+)?)\s*([kmgtpe]?)(i?b)?$/i.exec(value.trim());
  if (!match) return null;
  const bytes = Number(match[1]) * 1024 ** BINARY_UNITS[match[2].toLowerCase()];
  return Number.isSafeInteger(Math.round(bytes)) ? Math.round(bytes) : null;
}

function isByteSlot(name: string): boolean {
  return name === 'mem' || name.endsWith('.mem') || name.endsWith('_mem');
}

/** A resource-slot map with every amount as STR(dec) (CONTRACT §1.6). */
export function normaliseSlots(value: unknown, field: string): Slots {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`${field} must be a JSON object of slot amounts.`);
  const out: Slots = {};
  for (const [slot, amount] of Object.entries(value as Record<string, unknown>)) {
    if (!/^[a-z][a-z0-9_.-]*$/i.test(slot)) throw invalid(`${field}: invalid slot name ${slot}.`);
    if (amount === 'Infinity' || amount === 'NaN') {
      out[slot] = amount;
      continue;
    }
    if (isByteSlot(slot)) {
      const bytes = parseBinarySize(amount);
      if (bytes === null) throw invalid(`${field}.${slot} must be a byte size.`);
      out[slot] = String(bytes);
      continue;
    }
    const n = typeof amount === 'string' && amount.trim() !== '' ? Number(amount) : amount;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) throw invalid(`${field}.${slot} must be a non-negative number.`);
    out[slot] = String(n);
  }
  return out;
}

/** `{host: [permission, …]}` with the permissions of CONTRACT §5.3. */
export function hostPermissions(value: unknown, field: string): Record<string, string[]> {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`${field} must be a JSON object of host → permissions.`);
  const out: Record<string, string[]> = {};
  for (const [host, perms] of Object.entries(value as Record<string, unknown>)) {
    if (!Array.isArray(perms) || perms.some((p) => typeof p !== 'string' || !ALL_HOST_PERMISSIONS.includes(p))) {
      throw invalid(`${field}.${host} must be a list of host permissions (${ALL_HOST_PERMISSIONS.join(', ')}).`);
    }
    out[host] = [...new Set(perms as string[])];
  }
  return out;
}

/** A JSON object (scheduler or driver options). */
export function jsonObject(value: unknown, field: string): Record<string, unknown> {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`${field} must be a JSON object.`);
  return value as Record<string, unknown>;
}

/** Addresses and CIDR networks, as the request path checks them. */
export function ipList(value: (string | null)[] | null | undefined): string[] | null {
  if (value === null || value === undefined) return null;
  const out: string[] = [];
  for (const entry of value) {
    if (entry === null) continue;
    const [net, bits, extra] = entry.trim().split('/');
    const family = isIP(net);
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
    if (!family || !bitsOk || extra !== undefined) throw invalid(`allowed_client_ip: ${entry} is not an IP address or network.`);
    out.push(entry.trim());
  }
  return out.length ? out : null;
}

/** A name for a domain, scaling group, policy or preset: 1–64 characters, no surrounding spaces, no slash. */
export function checkName(name: string, what: string): string {
  if (!name || name.length > 64 || name.trim() !== name || name.includes('/')) {
    throw invalid(`Invalid ${what} name: it must be 1 to 64 characters without surrounding spaces or '/'.`);
  }
  return name;
}

export function checkEmail(email: string): string {
  if (email.length > 64 || !/^[^\s@]+@[^\s@]+$/.test(email)) throw invalid(`Invalid email address: ${email}`);
  return email;
}

export function nonNegative(value: number | null | undefined, field: string): void {
  if (value !== null && value !== undefined && value < 0) throw invalid(`${field} must not be negative.`);
}

/** Picks one of the allowed values, or refuses. */
export function oneOf<T extends string>(value: string, allowed: readonly T[], field: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw invalid(`${field} must be one of ${allowed.join(', ')}.`);
  return value as T;
}

/** The fields of `props` that were given (undefined ones dropped; explicit nulls kept). */
export function given<T extends object>(props: T | null | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(props ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}
