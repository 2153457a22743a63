/**
 * Folder names. A folder is mounted at /home/work/<name>, so a name is one path component: 1–64 characters, no
 * `/`, NUL or other control characters, not `.` or `..`, no surrounding spaces, and none of the dot-names a
 * session's home directory needs for itself.
 */
import { badRequest } from '../http/problem';

export const MAX_FOLDER_NAME_LENGTH = 64;

/** Dot-names that would shadow a session's own configuration when mounted. `.local` stays allowed. */
export const RESERVED_FOLDER_NAMES: ReadonlySet<string> = new Set([
  '.terminfo', '.jupyter', '.ssh', '.tmux.conf', '.bashrc', '.bash_profile', '.profile', '.zshrc', '.vimrc', '.bash_logout',
]);

export function checkFolderName(name: unknown, field = 'name'): string {
  const refuse = (why: string) => badRequest(`${field}: ${why}`, { [field]: why });
  if (typeof name !== 'string' || name.length === 0) throw refuse('must be a non-empty string');
  if ([...name].length > MAX_FOLDER_NAME_LENGTH) throw refuse(`must be at most ${MAX_FOLDER_NAME_LENGTH} characters`);
  if (name.includes('/')) throw refuse('must not contain "/"');
   
  if (/[\x00-\x1f\x7f]/.test(name)) throw refuse('must not contain NUL or control characters');
  if (name === '.' || name === '..') throw refuse('must not be "." or ".."');
  if (name.trim() !== name) throw refuse('must not start or end with whitespace');
  if (RESERVED_FOLDER_NAMES.has(name)) throw refuse(`"${name}" is reserved for the session's home directory`);
  return name;
}

/** Dot-prefixed names other than `.local` cannot be group folders (CONTRACT §9.1). */
export function isDotName(name: string): boolean {
  return name.startsWith('.') && name !== '.local';
}
