/**
 * Virtual folders (CONTRACT §5.3, §9): the folders themselves, per-user permissions on shared folders,
 * invitations, and quota scopes (`user:<uuid>` / `project:<uuid>`). A folder's data lives on a storage host
 * (`<proxy>:<volume>`) in a directory named by its id; see server/storage/.
 *
 * Owners are referenced without cascading deletes: purging a user or a project that still owns folders fails
 * instead of silently dropping the records of data that is still on disk.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table vfolders (
      id uuid primary key,
      name text not null,
      host text not null,
      quota_scope_id text not null,
      usage_mode text not null default 'general' check (usage_mode in ('general', 'model', 'data')),
      permission text not null default 'rw' check (permission in ('ro', 'rw', 'wd')),
      ownership_type text not null check (ownership_type in ('user', 'group')),
      user_uuid uuid references users(uuid),
      group_id uuid references groups(id),
      creator text not null,
      unmanaged_path text,
      cloneable boolean not null default false,
      status text not null default 'ready',
      status_changed timestamptz not null default now(),
      status_history jsonb not null default '{}',
      max_files integer not null default 0,
      max_size bigint not null default 0,
      num_files bigint not null default 0,
      cur_size bigint not null default 0,
      created_at timestamptz not null default now(),
      last_used timestamptz,
      check ((ownership_type = 'user' and user_uuid is not null and group_id is null)
          or (ownership_type = 'group' and group_id is not null and user_uuid is null))
    );
    create index vfolders_user on vfolders(user_uuid);
    create index vfolders_group on vfolders(group_id);
    create index vfolders_name on vfolders(name);
    create index vfolders_quota_scope on vfolders(quota_scope_id);
    -- One live folder of a name per owner; folders in the trash (delete-*) free their name.
    create unique index vfolders_user_name on vfolders(user_uuid, name)
      where ownership_type = 'user' and status not in ('delete-pending', 'delete-ongoing', 'delete-complete', 'delete-error');
    create unique index vfolders_group_name on vfolders(group_id, name)
      where ownership_type = 'group' and status not in ('delete-pending', 'delete-ongoing', 'delete-complete', 'delete-error');

    create table vfolder_permissions (
      vfolder_id uuid not null references vfolders(id) on delete cascade,
      user_uuid uuid not null references users(uuid) on delete cascade,
      permission text not null check (permission in ('ro', 'rw', 'wd')),
      created_at timestamptz not null default now(),
      primary key (vfolder_id, user_uuid)
    );
    create index vfolder_permissions_user on vfolder_permissions(user_uuid);

    create table vfolder_invitations (
      id uuid primary key,
      vfolder_id uuid not null references vfolders(id) on delete cascade,
      inviter uuid not null references users(uuid) on delete cascade,
      invitee uuid not null references users(uuid) on delete cascade,
      permission text not null check (permission in ('ro', 'rw', 'wd')),
      state text not null default 'pending' check (state in ('pending', 'canceled', 'accepted', 'rejected')),
      created_at timestamptz not null default now(),
      modified_at timestamptz not null default now()
    );
    create index vfolder_invitations_invitee on vfolder_invitations(invitee, state);
    create index vfolder_invitations_inviter on vfolder_invitations(inviter, state);
    create unique index vfolder_invitations_pending on vfolder_invitations(vfolder_id, invitee) where state = 'pending';

    create table quota_scopes (
      id text primary key check (id ~ '^(user|project):[0-9a-f-]{36}$'),
      limit_bytes bigint,
      created_at timestamptz not null default now(),
      modified_at timestamptz not null default now()
    );
  `.execute(db);
}
