/**
 * `GET /folders/_/fstab` (superadmin): the file-system table of the manager host, or of an agent (the local agent
 * shares the manager's host, so it reads the same file). `fstab_path` names another table file.
 *
 * Editing (POST/DELETE /folders/_/mounts with `edit_fstab`) only ever touches a file the administrator named with
 * `fstab_path`, which must be an existing regular file: lines are appended, and removed by rewriting the file
 * through a temporary file renamed into place (same mode and owner).
 */
import os from 'node:os';
import { realpathSync, statSync } from 'node:fs';
import { appendFile, chmod, chown, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { App } from '../app';
import { Problem, badRequest, notFound } from '../http/problem';

export const DEFAULT_FSTAB = '/etc/fstab';
const MAX_FSTAB_BYTES = 1024 * 1024;

/** The local agents (they run on the manager's host); `agentId` must be one of them. */
export async function localAgentIds(app: App): Promise<string[]> {
  const rows = await app.db.selectFrom('agents').select(['id', 'backend']).where('status', '=', 'ALIVE').execute();
  return rows.filter((r) => r.backend === 'local' && app.agents.has(r.id)).map((r) => r.id);
}

function checkPathText(value: string, field: string): string {
  if (value.includes('\0') || !path.isAbsolute(value)) throw badRequest(`${field} must be an absolute path.`, { [field]: 'must be an absolute path' });
  return value;
}

export async function readFstab(app: App, input: { fstab_path?: string | null; agent_id?: string | null }): Promise<{ content: string; node: 'manager' | 'agent'; node_id: string }> {
  let node: 'manager' | 'agent' = 'manager';
  let nodeId = os.hostname();
  if (input.agent_id) {
    const known = await app.db.selectFrom('agents').select('id').where('id', '=', input.agent_id).executeTakeFirst();
    if (!known) throw new Problem('object-not-found', `No such agent: ${input.agent_id}`, undefined, { title: 'No such agent.' });
    if (!(await localAgentIds(app)).includes(input.agent_id)) {
      throw new Problem('service-unavailable', `The agent ${input.agent_id} is not reachable from this manager.`);
    }
    node = 'agent';
    nodeId = input.agent_id;
  }
  const named = input.fstab_path ? checkPathText(input.fstab_path, 'fstab_path') : null;
  const file = named ?? DEFAULT_FSTAB;
  let content: string;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw badRequest(`${file} is not a regular file.`, { fstab_path: 'not a regular file' });
    if (info.size > MAX_FSTAB_BYTES) throw badRequest(`${file} is larger than ${MAX_FSTAB_BYTES} bytes.`, { fstab_path: 'too large' });
    content = await readFile(file, 'utf8');
  } catch (err) {
    if (err instanceof Problem) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    // A host without /etc/fstab has an empty table; a file the caller named must exist.
    if (named) throw notFound('No such file.', `${named} does not exist.`);
    content = '';
  }
  return { content, node, node_id: nodeId };
}

/** The real path of a table file the administrator named for editing; 400 unless it is an existing regular file. */
export function editableFstab(fstabPath: string | null | undefined): string {
  if (!fstabPath) throw badRequest('edit_fstab needs fstab_path naming the table file to edit.', { fstab_path: 'required with edit_fstab' });
  checkPathText(fstabPath, 'fstab_path');
  let real: string;
  try {
    real = realpathSync(fstabPath);
  } catch {
    throw badRequest(`${fstabPath} does not exist.`, { fstab_path: 'no such file' });
  }
  if (!statSync(real).isFile()) throw badRequest(`${fstabPath} is not a regular file.`, { fstab_path: 'not a regular file' });
  return real;
}

/** fstab(5) escapes whitespace and backslashes in its fields as octal. */
function escapeField(value: string): string {
  return value.replace(/[\s\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

function unescapeField(value: string): string {
  return value.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

export function fstabLine(fsLocation: string, mountPoint: string, fsType: string, options: string | null | undefined): string {
  return `${escapeField(fsLocation)} ${escapeField(mountPoint)} ${fsType} ${options || 'defaults'} 0 0\n`;
}

export async function appendFstabLine(file: string, line: string): Promise<void> {
  const current = await readFile(file, 'utf8');
  await appendFile(file, current.length && !current.endsWith('\n') ? `\n${line}` : line);
}

/** Removes the lines that mount something at `mountPoint`; answers how many went. */
export async function removeFstabEntries(file: string, mountPoint: string): Promise<number> {
  const current = await readFile(file, 'utf8');
  const lines = current.split('\n');
  const kept = lines.filter((line) => {
    const fields = line.trim().split(/\s+/);
    return line.trim().startsWith('#') || fields.length < 2 || unescapeField(fields[1]) !== mountPoint;
  });
  const removed = lines.length - kept.length;
  if (!removed) return 0;
  const info = await stat(file);
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.berth-${randomBytes(4).toString('hex')}`);
  const handle = await open(temp, 'wx', info.mode & 0o7777);
  try {
    await handle.writeFile(kept.join('\n'));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await chmod(temp, info.mode & 0o7777);
    if (process.getuid?.() === 0) await chown(temp, info.uid, info.gid);
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  return removed;
}
