/**
 * The rules of CONTRACT §14.3 that hold for every scope (user, domain, project): the shape of a dotfile's path,
 * permission and data, the per-scope limits (100 entries, 64 KiB packed) and the bootstrap script's size.
 */
import { z } from 'zod';

export const MAX_DOTFILES_PER_SCOPE = 100;
/** The packed (MessagePack) size of one scope's whole list, as Backend.AI measures it. */
export const MAX_DOTFILES_PACKED_BYTES = 64 * 1024;
export const MAX_BOOTSTRAP_SCRIPT_BYTES = 64 * 1024;

const HOME = '/home/work/';
const MAX_PATH_BYTES = 4096;
const MAX_NAME_BYTES = 255;

/** Berth's own state folder inside /home/work (the bootstrap script lives there): nothing may be written under it. */
const RESERVED_TREES = ['.berth'];
/**
 * Paths that name folders (or files) the runtime places in /home/work itself; a dotfile at exactly one of these
 * would clash with them. Files inside the folders (`.config/foo`) are fine. Backend.AI reserves the same names.
 */
const RESERVED_PATHS = new Set(['.terminfo', '.jupyter', '.ssh', '.ssh/authorized_keys', '.local', '.config']);

export const PERMISSION_PATTERN = /^[0-7]{3}$/;

/** In `u` mode a surrogate pair is one code point, so this matches only a surrogate without its partner. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Text PostgreSQL can store: no NUL and no lone surrogate. */
export function storableText(value: string): string | null {
  if (value.includes('\0')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode';
  return null;
}

/**
 * The path relative to /home/work that `path` names (`.vimrc`, `/home/work/.vimrc` and `./.vimrc` are all `.vimrc`),
 * or the reason it is refused.
 */
export function canonicalDotfilePath(path: string): { path: string } | { error: string } {
  const bad = storableText(path);
  if (bad) return { error: bad };
  if (path.length === 0) return { error: 'must not be empty' };
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) return { error: `must be at most ${MAX_PATH_BYTES} bytes` };
  let relative = path;
  if (path.startsWith('/')) {
    if (!path.startsWith(HOME)) return { error: 'must be relative to /home/work or lie inside it' };
    relative = path.slice(HOME.length);
  }
  if (relative.endsWith('/')) return { error: 'must name a file, not a folder' };
  const parts = relative.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) return { error: 'must not contain ".." (it may not leave /home/work)' };
  if (parts.length === 0) return { error: 'must name a file inside /home/work' };
  if (parts.some((part) => Buffer.byteLength(part) > MAX_NAME_BYTES)) return { error: `each name must be at most ${MAX_NAME_BYTES} bytes` };
  const canonical = parts.join('/');
  if (RESERVED_TREES.includes(parts[0])) return { error: `"${parts[0]}" is reserved for Berth` };
  if (RESERVED_PATHS.has(canonical)) return { error: `"${canonical}" is a reserved name` };
  return { path: canonical };
}

/** The canonical path, or null when `path` cannot name a stored dotfile (so nothing is stored there). */
export function lookupPath(path: string): string | null {
  const result = canonicalDotfilePath(path);
  return 'path' in result ? result.path : null;
}

export const dotfilePath = () =>
  z.string().superRefine((value, ctx) => {
    const result = canonicalDotfilePath(value);
    if ('error' in result) ctx.addIssue({ code: 'custom', message: result.error });
  });

export const dotfilePermission = () => z.string().regex(PERMISSION_PATTERN, 'must be three octal digits, e.g. "644"');

export const storable = () =>
  z.string().superRefine((value, ctx) => {
    const bad = storableText(value);
    if (bad) ctx.addIssue({ code: 'custom', message: bad });
  });

export const bootstrapScript = () =>
  storable().refine((value) => Buffer.byteLength(value) <= MAX_BOOTSTRAP_SCRIPT_BYTES, `must be at most ${MAX_BOOTSTRAP_SCRIPT_BYTES} bytes`);

/**
 * The size of `list` encoded as a MessagePack array of {path, permission, data} maps: the "packed" size the
 * 64 KiB limit is measured on.
 */
export function packedSize(list: readonly { path: string; permission: string; data: string }[]): number {
  let size = list.length < 16 ? 1 : list.length < 0x10000 ? 3 : 5;
  for (const file of list) {
    size += 1; // fixmap of three entries
    size += packedString('path') + packedString(file.path);
    size += packedString('permission') + packedString(file.permission);
    size += packedString('data') + packedString(file.data);
  }
  return size;
}

function packedString(value: string): number {
  const bytes = Buffer.byteLength(value);
  const header = bytes < 32 ? 1 : bytes < 0x100 ? 2 : bytes < 0x10000 ? 3 : 5;
  return header + bytes;
}
