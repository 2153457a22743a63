/**
 * Virtual folders with Backend.AI's field names: `vfolder(id)`, `vfolder_list`, `vfolder_own_list`,
 * `vfolder_invited_list`, `vfolder_project_list`, and `storage_volume_list`. Visibility is the REST listing's
 * (server/storage/list.ts), so GraphQL never shows a folder GET /folders would not.
 */
import { isSuperadmin } from '../auth/principal';
import { Problem } from '../http/problem';
import { listFolders } from '../storage/list';
import { allVolumes } from '../storage/hosts';
import type { GqlContext, ResolverMap } from './context';
import { LIST_ARGS_SDL, filterAndOrder, pageWindow, fieldsOf, type FieldMap, type ListArgs } from '../db/list-query';
import type { AccessRoute, FolderQuery } from '../storage/access';

export const vfolderTypeDefs = /* GraphQL */ `
  type VirtualFolder {
    id: String
    name: String
    host: String
    quota_scope_id: String
    usage_mode: String
    permission: String
    ownership_type: String
    user: UUID
    user_email: String
    group: UUID
    group_name: String
    creator: String
    status: String
    cloneable: Boolean
    is_owner: Boolean
    max_files: Int
    max_size: BigInt
    cur_size: BigInt
    created_at: DateTime
  }

  type VirtualFolderList {
    items: [VirtualFolder]!
    total_count: Int!
  }

  type StorageVolume {
    id: String
    backend: String
    path: String
    capabilities: [String]
  }

  type StorageVolumeList {
    items: [StorageVolume]!
    total_count: Int!
  }

  extend type Query {
    "A folder the caller can reach, by id (hex32 or hyphenated)."
    vfolder(id: String!): VirtualFolder
    "Folders the caller can reach; filter and order over the VIRTUAL_FOLDER_FIELDS (permission: the folder's own)."
    vfolder_list(${LIST_ARGS_SDL}, group_id: UUID): VirtualFolderList
    vfolder_own_list(${LIST_ARGS_SDL}): VirtualFolderList
    vfolder_invited_list(${LIST_ARGS_SDL}): VirtualFolderList
    vfolder_project_list(${LIST_ARGS_SDL}, group_id: UUID): VirtualFolderList
    "Storage volumes (superadmins); filter and order are not supported here (an error when given)."
    storage_volume_list(${LIST_ARGS_SDL}): StorageVolumeList
  }
`;

type Folder = Record<string, unknown>;

/** What filter and order may name (Backend.AI's field names), and the columns they mean. */
export const VIRTUAL_FOLDER_FIELDS: FieldMap = fieldsOf('v', {
  uuid: ['id', 'user:user_uuid', 'group:group_id'],
  string: [
    'name', 'host', 'quota_scope_id', 'usage_mode', 'permission', 'ownership_type', 'user_email:u.email', 'group_name:g.name', 'creator',
    'unmanaged_path', 'status'
  ],
  number: ['max_files', 'max_size', 'cur_size'],
  boolean: ['cloneable'],
  datetime: ['created_at', 'last_used'],
});

function page<T>(rows: T[], args: ListArgs): { items: T[]; total_count: number } {
  const { limit, offset } = pageWindow(args);
  return { items: rows.slice(offset, offset + limit), total_count: rows.length };
}

/** The folders GET /folders shows, narrowed and ordered by the list's filter and order. */
async function reachable(ctx: GqlContext, args: Pick<ListArgs, 'filter' | 'order'> = {}, groupId?: string | null, via?: AccessRoute): Promise<Folder[]> {
  // Parsed (and refused with an error) before any query runs.
  const refine = args.filter || args.order ? (query: FolderQuery) => filterAndOrder(query, args, VIRTUAL_FOLDER_FIELDS) : undefined;
  return listFolders(ctx.app, ctx.principal, { group_id: groupId ?? null }, { refine, via });
}

export const vfolderResolvers: ResolverMap = {
  Query: {
    vfolder: async (_root, args: { id: string }, ctx) => {
      const wanted = args.id.replace(/-/g, '').toLowerCase();
      return (await reachable(ctx)).find((f) => f.id === wanted) ?? null;
    },
    vfolder_list: async (_root, args: ListArgs & { group_id?: string | null }, ctx) => page(await reachable(ctx, args, args.group_id), args),
    vfolder_own_list: async (_root, args: ListArgs, ctx) => page((await reachable(ctx, args)).filter((f) => f.ownership_type === 'user' && f.is_owner), args),
    vfolder_invited_list: async (_root, args: ListArgs, ctx) =>
      page((await reachable(ctx, args, null, 'shared')).filter((f) => f.ownership_type === 'user'), args),
    vfolder_project_list: async (_root, args: ListArgs & { group_id?: string | null }, ctx) =>
      page((await reachable(ctx, args, args.group_id)).filter((f) => f.ownership_type === 'group'), args),
    storage_volume_list: (_root, args: ListArgs, ctx) => {
      if (!isSuperadmin(ctx.principal)) throw new Problem('insufficient-privilege', 'Only superadmins may list storage volumes.');
      if (args.filter || args.order) throw new Problem('invalid-api-params', 'filter and order are not supported on storage_volume_list.');
      return page(
        allVolumes(ctx.app).map((v) => ({ id: `${v.proxy}:${v.volume}`, backend: v.backend, path: v.path, capabilities: v.capabilities })),
        args,
      );
    },
  },
};
