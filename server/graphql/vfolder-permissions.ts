/**
 * `vfolder_permission_list` (CONTRACT §16): the per-user permissions folders are shared with (invitations accepted,
 * direct shares). Superadmins see every row; domain admins the rows of their domain's folders; anyone else the rows
 * of the folders they own and the rows that name them.
 */
import { sql } from 'kysely';
import { isAdmin, isSuperadmin } from '../auth/principal';
import { LIST_ARGS_SDL, runList, fieldsOf, type FieldMap, type ListArgs } from '../db/list-query';
import type { ResolverMap } from './context';

export const vfolderPermissionTypeDefs = /* GraphQL */ `
  type VirtualFolderPermission {
    permission: String
    vfolder: UUID
    vfolder_name: String
    user: UUID
    user_email: String
  }

  type VirtualFolderPermissionList {
    items: [VirtualFolderPermission]!
    total_count: Int!
  }

  extend type Query {
    vfolder_permission_list(${LIST_ARGS_SDL}): VirtualFolderPermissionList
  }
`;

const FIELDS: FieldMap = fieldsOf('p', {
  uuid: ['vfolder:vfolder_id', 'user:user_uuid'],
  string: ['permission', 'vfolder_name:v.name', 'user_email:su.email'],
});

export const vfolderPermissionResolvers: ResolverMap = {
  Query: {
    vfolder_permission_list: (_root, args: ListArgs, ctx) => {
      const me = ctx.principal;
      let base = ctx.app.db
        .selectFrom('vfolder_permissions as p')
        .innerJoin('vfolders as v', 'v.id', 'p.vfolder_id')
        .innerJoin('users as su', 'su.uuid', 'p.user_uuid')
        .leftJoin('users as ou', 'ou.uuid', 'v.user_uuid')
        .leftJoin('groups as g', 'g.id', 'v.group_id')
        .where('v.status', 'not in', ['delete-ongoing', 'delete-complete']);
      if (!isSuperadmin(me)) {
        base = base.where((eb) =>
          eb.or([
            eb('v.user_uuid', '=', me.userId),
            eb('p.user_uuid', '=', me.userId),
            ...(isAdmin(me) ? [eb(sql`coalesce(ou.domain_name, g.domain_name)`, '=', me.domainName)] : []),
          ]),
        );
      }
      return runList(base, args, FIELDS, 'p.created_at', (qb) =>
        qb.select(['p.permission', 'p.vfolder_id as vfolder', 'v.name as vfolder_name', 'p.user_uuid as user', 'su.email as user_email']),
      );
    },
  },
};
