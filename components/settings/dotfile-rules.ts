/**
 * The dotfile rules of CONTRACT §14.3, checked in the browser before anything is sent, so a person sees what to
 * fix next to the field. The manager checks them again (server/userconfig/validation.ts) and has the last word.
 */

export const MAX_DOTFILES = 100;
/** Per scope, measured by the manager on the packed list; the page shows the plain total as a guide. */
export const MAX_DOTFILES_BYTES = 64 * 1024;
export const MAX_BOOTSTRAP_BYTES = 64 * 1024;

const HOME = '/home/work/';
const MAX_PATH_BYTES = 4096;
const MAX_NAME_BYTES = 255;
const RESERVED_TREES = ['.berth'];
const RESERVED_PATHS = new Set(['.terminfo', '.jupyter', '.ssh', '.ssh/authorized_keys', '.local', '.config']);

const encoder = new TextEncoder();

export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** The path relative to /home/work, or why it cannot be a dotfile path. */
export function checkDotfilePath(path: string): { path: string } | { error: string } {
  if (path.trim() === '') return { error: 'Enter a path, such as .vimrc or .config/starship.toml.' };
  if (path.includes('\0')) return { error: 'The path must not contain NUL characters.' };
  if (byteLength(path) > MAX_PATH_BYTES) return { error: `The path must be at most ${MAX_PATH_BYTES} bytes.` };
  let relative = path;
  if (path.startsWith('/')) {
    if (!path.startsWith(HOME)) return { error: 'An absolute path must lie inside /home/work.' };
    relative = path.slice(HOME.length);
  }
  if (relative.endsWith('/')) return { error: 'The path must name a file, not a folder.' };
  const parts = relative.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) return { error: 'The path must not contain “..”: dotfiles stay inside /home/work.' };
  if (parts.length === 0) return { error: 'The path must name a file inside /home/work.' };
  if (parts.some((part) => byteLength(part) > MAX_NAME_BYTES)) return { error: `Each name in the path must be at most ${MAX_NAME_BYTES} bytes.` };
  const canonical = parts.join('/');
  if (RESERVED_TREES.includes(parts[0])) return { error: `“${parts[0]}” is reserved for Berth.` };
  if (RESERVED_PATHS.has(canonical)) return { error: `“${canonical}” is a reserved name; files inside it are fine.` };
  return { path: canonical };
}

export function checkPermission(permission: string): string | null {
  return /^[0-7]{3}$/.test(permission) ? null : 'Three octal digits (0–7), such as 644 (read-write for you, read for others) or 600.';
}

/** A permission such as 644 as `rw-r--r--`, for the list; null when it is not three octal digits. */
export function symbolicPermission(permission: string): string | null {
  if (checkPermission(permission)) return null;
  return [...permission].map((digit) => {
    const n = Number(digit);
    return `${n & 4 ? 'r' : '-'}${n & 2 ? 'w' : '-'}${n & 1 ? 'x' : '-'}`;
  }).join('');
}
