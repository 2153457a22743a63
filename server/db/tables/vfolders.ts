/** Virtual folders, their permissions, invitations and quota scopes. */
import type { Json, Timestamp, Defaulted, OptionalTimestamp } from './columns';

export type FolderPermission = 'ro' | 'rw' | 'wd';

export interface VFolderTable {
  id: string;
  name: string;
  /** `<proxy>:<volume>`, e.g. `local:volume1`. */
  host: string;
  /** `user:<uuid>` or `project:<uuid>`. */
  quota_scope_id: string;
  usage_mode: Defaulted<string>;
  /** For group folders, what project members get; for user folders, the owner's default mount permission. */
  permission: Defaulted<FolderPermission>;
  ownership_type: 'user' | 'group';
  user_uuid: string | null;
  group_id: string | null;
  /** The creator's email. */
  creator: string;
  /** An admin-given host directory used as the folder root instead of a managed directory. */
  unmanaged_path: Defaulted<string | null>;
  cloneable: Defaulted<boolean>;
  status: Defaulted<string>;
  status_changed: Timestamp;
  status_history: Json<Record<string, string>>;
  max_files: Defaulted<number>;
  max_size: Defaulted<number>;
  /** Last measured file count and bytes (refreshed whenever the folder's usage is computed). */
  num_files: Defaulted<number>;
  cur_size: Defaulted<number>;
  created_at: Timestamp;
  last_used: OptionalTimestamp;
}

export interface VFolderPermissionTable {
  vfolder_id: string;
  user_uuid: string;
  permission: FolderPermission;
  created_at: Timestamp;
}

export interface VFolderInvitationTable {
  id: string;
  vfolder_id: string;
  /** User uuids; the API shows their emails. */
  inviter: string;
  invitee: string;
  permission: FolderPermission;
  state: Defaulted<'pending' | 'canceled' | 'accepted' | 'rejected'>;
  created_at: Timestamp;
  modified_at: Timestamp;
}

export interface QuotaScopeTable {
  /** `user:<uuid>` or `project:<uuid>`. */
  id: string;
  /** null: no limit of its own (the policy's maximum, if any, applies). */
  limit_bytes: Defaulted<number | null>;
  created_at: Timestamp;
  modified_at: Timestamp;
}
