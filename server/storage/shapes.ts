/** The wire shapes of CONTRACT §9.1–9.2: folder ids as hex32, owner and project ids as hyphenated uuids. */
import type { VFolder } from '../db/schema';
import type { FolderAccess } from './access';
import { toHex32 } from './ids';

/** POST /folders (and the target of a clone). */
export function createdShape(folder: VFolder): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: toHex32(folder.id),
    name: folder.name,
    quota_scope_id: folder.quota_scope_id,
    host: folder.host,
    usage_mode: folder.usage_mode,
    permission: folder.permission,
    max_size: folder.max_size,
    creator: folder.creator,
    ownership_type: folder.ownership_type,
    user: folder.user_uuid,
    group: folder.group_id,
    cloneable: folder.cloneable,
    status: folder.status,
  };
  if (folder.unmanaged_path) out.unmanaged_path = folder.unmanaged_path;
  return out;
}

/** One entry of GET /folders. */
export function listShape(access: FolderAccess): Record<string, unknown> {
  const f = access.folder;
  return {
    name: f.name,
    id: toHex32(f.id),
    quota_scope_id: f.quota_scope_id,
    host: f.host,
    status: f.status,
    usage_mode: f.usage_mode,
    created_at: f.created_at.toISOString(),
    is_owner: access.isOwner,
    permission: access.permission,
    user: f.user_uuid,
    group: f.group_id,
    creator: f.creator,
    user_email: f.owner_email,
    group_name: f.group_name,
    ownership_type: f.ownership_type,
    type: f.ownership_type,
    cloneable: f.cloneable,
    max_files: f.max_files,
    max_size: f.max_size,
    cur_size: f.cur_size,
  };
}

/** GET /folders/{name}, with the usage just measured. */
export function infoShape(access: FolderAccess, usage: { fileCount: number; usedBytes: number }): Record<string, unknown> {
  const f = access.folder;
  const created = f.created_at.toISOString();
  return {
    name: f.name,
    id: toHex32(f.id),
    host: f.host,
    quota_scope_id: f.quota_scope_id,
    status: f.status,
    num_files: usage.fileCount,
    numFiles: usage.fileCount,
    used_bytes: usage.usedBytes,
    created_at: created,
    created,
    last_used: f.last_used ? f.last_used.toISOString() : null,
    user: f.user_uuid,
    group: f.group_id,
    type: f.ownership_type,
    is_owner: access.isOwner,
    permission: access.permission,
    usage_mode: f.usage_mode,
    cloneable: f.cloneable,
    max_size: f.max_size,
    cur_size: usage.usedBytes,
  };
}
