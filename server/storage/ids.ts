/** Folder ids: stored as canonical uuids, answered as hex32 (CONTRACT §9); inputs accept both forms. */

const UUID_INPUT = /^([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})$/i;

/** The canonical hyphenated form of a hex32 or hyphenated uuid, or null when `value` is neither. */
export function toUuid(value: string): string | null {
  const m = UUID_INPUT.exec(value.trim());
  return m ? `${m[1]}-${m[2]}-${m[3]}-${m[4]}-${m[5]}`.toLowerCase() : null;
}

export function toHex32(uuid: string): string {
  return uuid.replace(/-/g, '').toLowerCase();
}

export function userScope(userUuid: string): string {
  return `user:${userUuid}`;
}

export function projectScope(groupId: string): string {
  return `project:${groupId}`;
}
