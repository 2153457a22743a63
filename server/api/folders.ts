/** §Virtual folders (CONTRACT §9): folders, their files, storage hosts, quotas and host mounts. */
import { z } from 'zod';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { emptyAfter, raw, route } from '../http/route';
import { bool, fold, list, uuid } from '../http/params';
import { createFolder, USAGE_MODES } from '../storage/create';
import { folderInfo, listFolders } from '../storage/list';
import { deleteFolder, deleteFolderById } from '../storage/delete';
import { findFolder } from '../storage/access';
import { renameFolder, updateFolderOptions } from '../storage/options';
import { deleteFiles, listFiles, makeDirectories, moveFile, renameFile } from '../storage/files';
import { ALLOWED_TYPES, listAllHosts, listHosts } from '../storage/host-info';
import { perfMetric } from '../storage/perf-metric';
import { getQuota, getUsage, getUsedBytes, setQuota } from '../storage/figures';
import { changeOwnership } from '../storage/ownership';
import { readFstab } from '../storage/fstab';
import { listMounts, mountDevice, unmountDevice } from '../storage/mounts';

const permission = z.enum(['ro', 'rw', 'wd']);
const text = () => z.string().refine((s) => !s.includes('\0'), 'must not contain NUL bytes');

const byName = z.object({ name: z.string().min(1) });
const hostAndId = z.object({ folder_host: z.string().min(1), id: uuid() });

/** A read of figures about one folder, named by host and id (CONTRACT §9.6). */
function folderFigures(
  path: string,
  privilege: 'user' | 'superadmin',
  summary: string,
  figures: (app: App, caller: Principal, folderHost: string, id: string) => Promise<unknown>,
) {
  return route({
    method: 'GET', path, privilege, status: 'FROZEN', input: hostAndId, summary,
    handler: ({ app, principal, input }) => figures(app, principal, input.folder_host, input.id),
  });
}

const createSchema = z.preprocess(
  (v) => fold({ host: ['folder_host'], group: ['group_id'], usage_mode: ['usageMode'], unmanaged_path: ['unmanagedPath'] }, v),
  z.object({
    name: z.string(),
    host: z.string().nullish(),
    usage_mode: z.enum(USAGE_MODES).default('general'),
    permission: permission.default('rw'),
    unmanaged_path: text().nullish(),
    group: z.string().nullish(),
    quota: z.union([z.string(), z.number()]).nullish(),
    cloneable: bool().default(false),
  }),
);

export const folderRoutes = [
  route({
    method: 'POST', path: '/folders', privilege: 'user', status: 'RUNNING', input: createSchema,
    summary: 'Create a user or project folder',
    handler: ({ app, principal, input }) => createFolder(app, principal, input),
  }),
  route({
    method: 'GET', path: '/folders', privilege: 'user', status: 'FROZEN',
    input: z.object({ all: bool().default(false), group_id: z.string().nullish(), owner_user_email: z.string().nullish() }),
    summary: 'The folders the caller can reach (superadmins: as another user with owner_user_email)',
    handler: ({ app, principal, input }) => listFolders(app, principal, input),
  }),
  route({
    method: 'DELETE', path: '/folders', privilege: 'superadmin', status: 'RUNNING', input: z.object({ id: uuid() }),
    summary: 'Move a folder to the trash by id; purge it when it is already there',
    handler: ({ app, principal, input }) => emptyAfter(deleteFolderById(app, principal, input.id)),
  }),

  route({
    method: 'GET', path: '/folders/_/hosts', privilege: 'user', status: 'FROZEN', input: z.object({ group_id: z.string().nullish() }),
    summary: 'Storage hosts the caller may use, with their usage',
    handler: ({ app, principal, input }) => listHosts(app, principal, input.group_id),
  }),
  route({
    method: 'GET', path: ['/folders/_/all-hosts', '/folders/_/all_hosts'], privilege: 'superadmin', status: 'FROZEN',
    summary: 'Every storage host', handler: ({ app }) => listAllHosts(app),
  }),
  route({
    method: 'GET', path: ['/folders/_/allowed-types', '/folders/_/allowed_types'], privilege: 'user', status: 'FROZEN',
    summary: 'The folder ownership types that can be created', handler: () => ALLOWED_TYPES,
  }),
  route({
    method: 'GET', path: '/folders/_/perf-metric', privilege: 'superadmin', status: 'FROZEN', input: z.object({ folder_host: z.string().min(1) }),
    summary: "Measured performance figures of a storage host's volume",
    handler: ({ app, input }) => perfMetric(app, input.folder_host),
  }),
  folderFigures('/folders/_/quota', 'user', "Used bytes and limit of a folder's quota scope", getQuota),
  route({
    method: 'POST', path: '/folders/_/quota', privilege: 'user', status: 'RUNNING',
    input: hostAndId.extend({ input: z.record(z.string(), z.unknown()) }),
    summary: "Set the limit of a folder's quota scope",
    handler: ({ app, principal, input }) => setQuota(app, principal, input.folder_host, input.id, input.input),
  }),
  folderFigures('/folders/_/usage', 'superadmin', 'File count and bytes of a folder', getUsage),
  folderFigures('/folders/_/used-bytes', 'superadmin', 'Bytes of a folder', getUsedBytes),
  route({
    method: 'POST', path: '/folders/_/change-ownership', privilege: 'superadmin', status: 'RUNNING',
    input: z.object({ vfolder: uuid(), user_email: z.string().min(1) }),
    summary: 'Give a user folder to another user',
    handler: ({ app, principal, input }) => emptyAfter(changeOwnership(app, principal, input.vfolder, input.user_email)),
  }),
  route({
    method: 'GET', path: '/folders/_/fstab', privilege: 'superadmin', status: 'FROZEN',
    input: z.object({ fstab_path: text().nullish(), agent_id: z.string().nullish() }),
    summary: "The file-system table of the manager's or an agent's host",
    handler: ({ app, input }) => readFstab(app, input),
  }),
  route({
    method: 'GET', path: '/folders/_/mounts', privilege: 'superadmin', status: 'FROZEN',
    summary: 'Devices mounted under the vfolder root, on the manager and the agents',
    handler: ({ app }) => listMounts(app),
  }),
  route({
    method: 'POST', path: '/folders/_/mounts', privilege: 'superadmin', status: 'RUNNING',
    input: z.object({
      fs_location: text().min(1),
      name: z.string().min(1),
      fs_type: z.string().nullish(),
      options: text().nullish(),
      scaling_group: z.string().nullish(),
      fstab_path: text().nullish(),
      edit_fstab: bool().default(false),
    }),
    summary: 'Mount a device under the vfolder root',
    handler: ({ app, input }) => mountDevice(app, input),
  }),
  route({
    method: 'DELETE', path: '/folders/_/mounts', privilege: 'superadmin', status: 'RUNNING',
    input: z.object({ name: z.string().min(1), scaling_group: z.string().nullish(), fstab_path: text().nullish(), edit_fstab: bool().default(false) }),
    summary: 'Unmount a device from under the vfolder root',
    handler: ({ app, input }) => unmountDevice(app, input),
  }),

  route({
    method: 'GET', path: '/folders/:name', privilege: 'user', status: 'FROZEN', input: byName,
    summary: 'Folder information with its measured usage',
    handler: ({ app, principal, input }) => folderInfo(app, principal, input.name),
  }),
  route({
    method: 'DELETE', path: '/folders/:name', privilege: 'user', status: 'RUNNING', input: byName,
    summary: 'Move a folder to the trash (status delete-pending)',
    handler: async ({ app, principal, input }) => emptyAfter(deleteFolder(app, principal, await findFolder(app, principal, input.name))),
  }),
  route({
    method: 'POST', path: '/folders/:name/rename', privilege: 'user', status: 'RUNNING', input: byName.extend({ new_name: z.string() }),
    summary: 'Rename a folder',
    handler: ({ app, principal, input }) => emptyAfter(renameFolder(app, principal, input.name, input.new_name)),
  }),
  route({
    method: 'POST', path: '/folders/:name/update-options', privilege: 'user', status: 'RUNNING',
    input: byName.extend({ cloneable: bool().nullish(), permission: permission.nullish() }),
    summary: "Change a folder's cloneable flag or permission",
    handler: ({ app, principal, input }) => emptyAfter(updateFolderOptions(app, principal, input.name, input)),
  }),
  route({
    method: 'POST', path: '/folders/:name/mkdir', privilege: 'user', status: 'FROZEN',
    input: byName.extend({ path: z.union([z.string(), z.array(z.string())]), parents: bool().default(true), exist_ok: bool().default(false) }),
    summary: 'Create directories (up to 50) in a folder',
    handler: ({ app, principal, input }) => makeDirectories(app, principal, input.name, input),
  }),
  route({
    method: 'POST', path: '/folders/:name/move-file', privilege: 'user', status: 'FROZEN', input: byName.extend({ src: z.string(), dst: z.string() }),
    summary: 'Move a file or directory inside a folder (never overwriting)',
    handler: ({ app, principal, input }) => emptyAfter(moveFile(app, principal, input.name, input.src, input.dst)),
  }),
  route({
    method: 'POST', path: ['/folders/:name/rename-file', '/folders/:name/rename_file'], privilege: 'user', status: 'FROZEN',
    input: byName.extend({ target_path: z.string(), new_name: z.string(), is_dir: bool().optional() }),
    summary: 'Rename a file or directory in place',
    handler: ({ app, principal, input }) => emptyAfter(renameFile(app, principal, input.name, input.target_path, input.new_name)),
  }),
  route({
    method: 'DELETE', path: ['/folders/:name/delete-files', '/folders/:name/delete_files'], privilege: 'user', status: 'FROZEN',
    input: byName.extend({ files: list(z.string()), recursive: bool().default(false) }),
    summary: 'Delete files (and directories with recursive) in a folder',
    handler: ({ app, principal, input }) => emptyAfter(deleteFiles(app, principal, input.name, input.files, input.recursive)),
  }),
  route({
    method: 'GET', path: '/folders/:name/files', privilege: 'user', status: 'FROZEN', input: byName.extend({ path: z.string().default('') }),
    summary: 'List a directory of a folder',
    // Streamed: a directory of 100,000 entries is never one string in memory.
    handler: async ({ app, principal, input }) => raw('application/json', (await listFiles(app, principal, input.name, input.path)).body()),
  }),
];
