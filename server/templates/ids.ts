/** Template ids travel as hex32 (CONTRACT §14.1) and are stored as uuids; both spellings are accepted on input. */
const ID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** The canonical hyphenated uuid for a hex32 or hyphenated id, or null when `id` is neither. */
export function toUuid(id: string): string | null {
  const text = id.trim();
  if (!ID.test(text)) return null;
  const hex = text.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function hex32(uuid: string): string {
  return uuid.replace(/-/g, '').toLowerCase();
}
