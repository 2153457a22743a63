/**
 * `/folders/_/mounts` (superadmin): devices mounted under the vfolder root (`<BERTH_DATA_DIR>/vfolders/<name>`,
 * beside `volume1`) with the real `mount` and `umount`. The local agent runs on the manager's host, so a mount
 * made here serves it too and is reported under `agents` as well; agents on other hosts are reported as not
 * reachable. A mounted directory becomes a storage host once it is listed in BERTH_STORAGE_VOLUMES.
 *
 * Nothing is mounted over a directory that holds files, nor over a volume; `mount` gets its arguments after `--`
 * and never through a shell.
 */
import { execFile } from 'node:child_process';
import { lstat, mkdir, readdir, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { App } from '../app';
import { badRequest } from '../http/problem';
import { allVolumes, mountRoot } from './hosts';
import { appendFstabLine, editableFstab, fstabLine, localAgentIds, removeFstabEntries } from './fstab';
import { isInside, readMountInfo } from './mountinfo';

const MOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const FS_TYPE = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,31}$/;
const COMMAND_TIMEOUT_MS = 60_000;

export interface NodeResult {
  success: boolean;
  mounts?: unknown[];
  message: string;
}

export interface MountInput {
  fs_location: string;
  name: string;
  fs_type?: string | null;
  options?: string | null;
  scaling_group?: string | null;
  fstab_path?: string | null;
  edit_fstab: boolean;
}

export interface UnmountInput {
  name: string;
  scaling_group?: string | null;
  fstab_path?: string | null;
  edit_fstab: boolean;
}

function run(file: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: COMMAND_TIMEOUT_MS }, (error, stdout, stderr) => {
      resolve({ ok: !error, output: `${stdout}${stderr}`.trim() || (error ? error.message : '') });
    });
  });
}

/** Mount points directly or deeper under the vfolder root. */
async function managerMounts(app: App): Promise<string[]> {
  const root = mountRoot(app);
  return (await readMountInfo()).filter((m) => m.mountPoint !== root && isInside(m.mountPoint, root)).map((m) => m.mountPoint);
}

async function isMountPoint(target: string): Promise<boolean> {
  return (await readMountInfo()).some((m) => m.mountPoint === target);
}

/** The agents a mount operation addresses: ALIVE ones, of one scaling group when given. */
async function targetAgents(app: App, scalingGroup?: string | null): Promise<string[]> {
  if (scalingGroup) {
    const group = await app.db.selectFrom('scaling_groups').select('name').where('name', '=', scalingGroup).executeTakeFirst();
    if (!group) throw badRequest(`No such scaling group: ${scalingGroup}`, { scaling_group: 'unknown scaling group' });
  }
  let query = app.db.selectFrom('agents').select('id').where('status', '=', 'ALIVE');
  if (scalingGroup) query = query.where('scaling_group', '=', scalingGroup);
  return (await query.execute()).map((a) => a.id);
}

/** Local agents share the manager's result; others cannot be reached for mounts. */
async function agentResults(app: App, agents: string[], manager: NodeResult): Promise<Record<string, NodeResult>> {
  const local = new Set(await localAgentIds(app));
  const out: Record<string, NodeResult> = {};
  for (const id of agents) {
    out[id] = local.has(id)
      ? { ...manager, message: manager.message || 'shares the manager host' }
      : { success: false, message: 'this agent does not run on the manager host and cannot be reached for mounts' };
  }
  return out;
}

function mountPointFor(app: App, name: string): string {
  if (!MOUNT_NAME.test(name)) throw badRequest('name must be 1-64 letters, digits, _ . or -, not starting with . or -.', { name: 'invalid mount name' });
  const target = path.join(mountRoot(app), name);
  if (allVolumes(app).some((v) => isInside(v.path, target) || isInside(target, v.path))) {
    throw badRequest(`${name} holds a storage volume; choose another name.`, { name: 'a storage volume' });
  }
  return target;
}

export async function listMounts(app: App): Promise<Record<string, unknown>> {
  const manager: NodeResult = { success: true, mounts: await managerMounts(app), message: '' };
  return {
    manager,
    'storage-proxy': { success: true, mounts: allVolumes(app).map((v) => [v.host, v.path]), message: '' },
    agents: await agentResults(app, await targetAgents(app), manager),
  };
}

export async function mountDevice(app: App, input: MountInput): Promise<Record<string, unknown>> {
  const target = mountPointFor(app, input.name);
  const fsType = input.fs_type || 'nfs';
  if (!FS_TYPE.test(fsType)) throw badRequest('fs_type must be a file-system type name such as nfs, tmpfs or ext4.', { fs_type: 'invalid' });
   
  if (!input.fs_location || /[\x00-\x1f\x7f]/.test(input.fs_location)) throw badRequest('fs_location must be a device, share or path.', { fs_location: 'invalid' });
  if (input.options && (/\s/.test(input.options) || input.options.startsWith('-'))) throw badRequest('options must be a comma-separated mount option list.', { options: 'invalid' });
  const fstab = input.edit_fstab ? editableFstab(input.fstab_path) : null;
  const agents = await targetAgents(app, input.scaling_group);

  let created = false;
  const existing = await lstat(target).catch(() => null);
  if (existing) {
    if (!existing.isDirectory()) throw badRequest(`${target} exists and is not a directory.`, { name: 'not a directory' });
    if (await isMountPoint(target)) throw badRequest(`Something is already mounted at ${target}.`, { name: 'already mounted' });
    if ((await readdir(target)).length) throw badRequest(`${target} holds files; nothing is mounted over them.`, { name: 'not empty' });
  } else {
    await mkdir(target, { mode: 0o755 });
    created = true;
  }
  const args = ['-t', fsType, ...(input.options ? ['-o', input.options] : []), '--', input.fs_location, target];
  const result = await run('mount', args);
  let manager: NodeResult;
  if (result.ok) {
    if (fstab) await appendFstabLine(fstab, fstabLine(input.fs_location, target, fsType, input.options));
    manager = { success: true, mounts: [target], message: result.output };
  } else {
    if (created) await rmdir(target).catch(() => undefined);
    manager = { success: false, message: result.output || 'mount failed' };
  }
  return { manager, agents: await agentResults(app, agents, manager) };
}

export async function unmountDevice(app: App, input: UnmountInput): Promise<Record<string, unknown>> {
  const target = mountPointFor(app, input.name);
  const fstab = input.edit_fstab ? editableFstab(input.fstab_path) : null;
  const agents = await targetAgents(app, input.scaling_group);
  let manager: NodeResult;
  if (!(await isMountPoint(target))) {
    manager = { success: false, message: `Nothing is mounted at ${target}.` };
  } else {
    const result = await run('umount', ['--', target]);
    if (result.ok) {
      await rmdir(target).catch(() => undefined);
      const removed = fstab ? await removeFstabEntries(fstab, target) : 0;
      manager = { success: true, mounts: [target], message: result.output || (fstab ? `removed ${removed} fstab line(s)` : '') };
    } else {
      manager = { success: false, message: result.output || 'umount failed' };
    }
  }
  return { manager, agents: await agentResults(app, agents, manager) };
}
