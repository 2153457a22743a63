/**
 * `/folders/_/quota` (GET, POST), `/folders/_/usage` and `/folders/_/used-bytes` (CONTRACT §9.6). Each names a
 * folder by id plus its host; quota calls answer for the folder's quota scope, usage calls for the folder.
 */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { badRequest, notFound } from '../http/problem';
import { parseAmount } from '../resources/slots';
import { folderById, requireStatus, type FolderAccess } from './access';
import { scopeFigures, type ScopeFigures } from './quota';
import { quotaScopeOfFolder, writeQuotaScope } from './quota-scope';
import { folderUsage } from './usage';

async function folderOnHost(app: App, caller: Principal, folderHost: string, id: string): Promise<FolderAccess> {
  const access = await folderById(app, caller, id);
  if (!access) throw notFound('No such virtual folder.', `No virtual folder with id ${id}.`);
  if (access.folder.host !== folderHost) throw badRequest(`The folder is on ${access.folder.host}, not on ${folderHost}.`, { folder_host: 'not the folder\'s host' });
  requireStatus(access.folder, 'readable');
  return access;
}

export async function getQuota(app: App, caller: Principal, folderHost: string, id: string): Promise<ScopeFigures> {
  const { folder } = await folderOnHost(app, caller, folderHost, id);
  return scopeFigures(app, folder.quota_scope_id);
}

/** Sets the quota scope's limit through one of its folders (the rules: ./quota-scope.ts writeQuotaScope). */
export async function setQuota(app: App, caller: Principal, folderHost: string, id: string, input: Record<string, unknown>): Promise<{ size_bytes: number | null }> {
  const { folder } = await folderOnHost(app, caller, folderHost, id);
  const raw = input.size_bytes;
  const size = parseAmount(typeof raw === 'number' || typeof raw === 'string' ? raw : NaN);
  if (!Number.isFinite(size)) throw badRequest('input.size_bytes must be a number of bytes (or a size such as 10g).', { 'input.size_bytes': 'invalid size' });
  return { size_bytes: await writeQuotaScope(app, caller, quotaScopeOfFolder(folder), size) };
}

export async function getUsage(app: App, caller: Principal, folderHost: string, id: string): Promise<{ file_count: number; used_bytes: number }> {
  const { folder } = await folderOnHost(app, caller, folderHost, id);
  const usage = await folderUsage(app, folder);
  return { file_count: usage.fileCount, used_bytes: usage.usedBytes };
}

export async function getUsedBytes(app: App, caller: Principal, folderHost: string, id: string): Promise<{ used_bytes: number }> {
  const { used_bytes } = await getUsage(app, caller, folderHost, id);
  return { used_bytes };
}
