/** Folder ids: stored as canonical uuids, answered as hex32 (CONTRACT §9); inputs accept both forms. */

import { canonicalUuid } from '../util/uuid';

/** The canonical hyphenated form of a hex32 or hyphenated uuid (spaces around it ignored), or null when neither. */
export function toUuid(value: string): string | null {
  return canonicalUuid(value.trim());
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
