/** UUIDs as stored: canonical hyphenated lower case. Inputs may be hyphenated or hex32 (CONTRACT §9). */

const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Canonical hyphenated lower-case form of a UUID (hex32 accepted), or null when the text is not one. */
export function canonicalUuid(text: string): string | null {
  if (!UUID_RE.test(text)) return null;
  const hex = text.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
