/** This machine's mount table, read from /proc/self/mountinfo (proc(5)). */
import { readFile } from 'node:fs/promises';

export interface MountEntry {
  /** `major:minor` of the mounted file system. */
  dev: string;
  mountPoint: string;
  fsType: string;
  source: string;
  options: string;
}

/** Undoes the octal escapes (`\040` for a space, …) of mountinfo fields. */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

export async function readMountInfo(): Promise<MountEntry[]> {
  const text = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const dash = fields.indexOf('-');
    if (fields.length < 10 || dash < 6) continue;
    entries.push({ dev: fields[2], mountPoint: unescape(fields[4]), options: fields[5], fsType: fields[dash + 1], source: unescape(fields[dash + 2]) });
  }
  return entries;
}

export function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

/** The mount holding `target`: the one with the longest mount point above it (the last such, when stacked). */
export async function mountOf(target: string): Promise<MountEntry | null> {
  let best: MountEntry | null = null;
  for (const entry of await readMountInfo()) {
    if (isInside(target, entry.mountPoint) && (!best || entry.mountPoint.length >= best.mountPoint.length)) best = entry;
  }
  return best;
}
