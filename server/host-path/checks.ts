/**
 * What both kinds of root in ./ (folders: ./folder.ts; a kernel's scratch directory seen as /home/work:
 * ./kernel-home.ts) refuse in the same words: the one answer for a path that would leave its root, the symlink
 * limit, and the check of where an opened descriptor really is.
 */
import { readlinkSync } from 'node:fs';
import { Problem, badRequest } from '../http/problem';

/** Symlinks followed while resolving one path (Linux's own limit). */
export const MAX_LINKS = 40;

/** 400 invalid-api-params naming the field and what is wrong with it. */
export function refuse(field: string, detail: string): Problem {
  return badRequest(`${field}: ${detail}`, { [field]: detail });
}

export function codeOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

/** Whether `candidate` (a real path) is `root` or lies below it. */
export function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/** Where an open descriptor really is; null where /proc is not available. */
export function descriptorPath(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}
