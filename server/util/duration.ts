/** Human durations such as `30d`, `1h30m`, `90` (seconds): used by password expiry and service tokens. */
const UNIT_SECONDS: Record<string, number> = { y: 365 * 86400, w: 7 * 86400, d: 86400, h: 3600, m: 60, s: 1 };

/** Seconds in the duration, or null when it is not one. */
export function parseDuration(text: string): number | null {
  const value = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)\s*([ywdhms])/g)];
  if (!parts.length || parts.map((p) => p[0]).join('').replace(/\s/g, '') !== value.replace(/\s/g, '')) return null;
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNIT_SECONDS[unit], 0);
}
