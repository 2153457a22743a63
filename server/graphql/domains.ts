/** Domains: read by superadmins (any) and members (their own); managed by superadmins. */
import { isSuperadmin } from '../auth/principal';
import { json } from '../db';
import type { Updateable } from 'kysely';
import type { Domain, DomainTable } from '../db/schema';
import { Problem } from '../http/problem';
import { dbOf, given, groupBy, loader, mutation, notFound, requireSuperadmin, type GqlContext, type ResolverMap } from './context';
import { checkName, hostPermissions, normaliseSlots } from '../admin/values';

export const domainTypeDefs = /* GraphQL */ `
  type Domain {
    name: String
    description: String
    is_active: Boolean
    created_at: DateTime
    modified_at: DateTime
    total_resource_slots: JSONString
    allowed_vfolder_hosts: JSONString
    allowed_docker_registries: [String]
    integration_id: String
    scaling_groups: [String]
  }

  input DomainInput {
    description: String
    is_active: Boolean
    total_resource_slots: JSONString
    allowed_vfolder_hosts: JSONString
    allowed_docker_registries: [String]
    integration_id: String
  }

  input ModifyDomainInput {
    name: String
    description: String
    is_active: Boolean
    total_resource_slots: JSONString
    allowed_vfolder_hosts: JSONString
    allowed_docker_registries: [String]
    integration_id: String
  }

  type CreateDomain { ok: Boolean, msg: String, domain: Domain }
  type ModifyDomain { ok: Boolean, msg: String, domain: Domain }
  type DeleteDomain { ok: Boolean, msg: String }
  type PurgeDomain { ok: Boolean, msg: String }

  extend type Query {
    "A domain; without a name, the caller's own. Non-superadmins may read only their own domain."
    domain(name: String): Domain
    "Every domain (superadmin)."
    domains(is_active: Boolean): [Domain]
  }

  extend type Mutation {
    create_domain(name: String!, props: DomainInput!): CreateDomain
    modify_domain(name: String!, props: ModifyDomainInput!): ModifyDomain
    "Deactivates the domain."
    delete_domain(name: String!): DeleteDomain
    "Removes the domain and its projects; refused while users belong to it."
    purge_domain(name: String!): PurgeDomain
  }
`;

interface DomainProps {
  name?: string;
  description?: string | null;
  is_active?: boolean | null;
  total_resource_slots?: unknown;
  allowed_vfolder_hosts?: unknown;
  allowed_docker_registries?: (string | null)[] | null;
  integration_id?: string | null;
}

export function loadDomain(ctx: GqlContext, name: string): Promise<Domain | undefined> {
  return dbOf(ctx).selectFrom('domains').selectAll().where('name', '=', name).executeTakeFirst();
}

function registries(list: (string | null)[] | null | undefined): string[] {
  return (list ?? []).filter((r): r is string => typeof r === 'string' && r.length > 0);
}

export const domainResolvers: ResolverMap = {
  Query: {
    async domain(_root, args: { name?: string | null }, ctx) {
      const name = args.name ?? ctx.principal.domainName;
      if (!isSuperadmin(ctx.principal) && name !== ctx.principal.domainName) {
        throw new Problem('generic-forbidden', 'You may read only your own domain.');
      }
      return (await loadDomain(ctx, name)) ?? null;
    },
    async domains(_root, args: { is_active?: boolean | null }, ctx) {
      requireSuperadmin(ctx);
      let q = dbOf(ctx).selectFrom('domains').selectAll();
      if (args.is_active !== undefined && args.is_active !== null) q = q.where('is_active', '=', args.is_active);
      return q.orderBy('name').execute();
    },
  },
  Domain: {
    scaling_groups: async (domain: Domain, _args, ctx) => {
      const load = loader<string, { scaling_group: string }[]>(ctx, 'domain.scaling_groups', async (names) => {
        const rows = await dbOf(ctx).selectFrom('sgroups_for_domains').select(['domain', 'scaling_group']).where('domain', 'in', names).orderBy('scaling_group').execute();
        return groupBy(rows, (r) => r.domain);
      });
      return ((await load.load(domain.name)) ?? []).map((r) => r.scaling_group);
    },
  },
  Mutation: {
    create_domain: mutation(async (args: { name: string; props: DomainProps }, ctx) => {
      requireSuperadmin(ctx);
      const name = checkName(args.name, 'domain');
      const props = args.props;
      if (await loadDomain(ctx, name)) throw new Problem('generic-bad-request', `Domain ${name} already exists.`);
      await dbOf(ctx)
        .insertInto('domains')
        .values({
          name,
          description: props.description ?? '',
          is_active: props.is_active ?? true,
          total_resource_slots: json(normaliseSlots(props.total_resource_slots, 'total_resource_slots')),
          allowed_vfolder_hosts: json(hostPermissions(props.allowed_vfolder_hosts, 'allowed_vfolder_hosts')),
          allowed_docker_registries: json(registries(props.allowed_docker_registries)),
          integration_id: props.integration_id ?? null,
          dotfiles: json([]),
        })
        .execute();
      return { domain: await loadDomain(ctx, name) };
    }),

    modify_domain: mutation(async (args: { name: string; props: DomainProps }, ctx) => {
      requireSuperadmin(ctx);
      const current = await loadDomain(ctx, args.name);
      if (!current) throw notFound('domain');
      const props = given(args.props);
      const set: Updateable<DomainTable> = { modified_at: new Date() };
      if (props.description !== undefined) set.description = props.description ?? '';
      if (props.is_active !== undefined && props.is_active !== null) set.is_active = props.is_active;
      if (props.total_resource_slots !== undefined) set.total_resource_slots = json(normaliseSlots(props.total_resource_slots, 'total_resource_slots'));
      if (props.allowed_vfolder_hosts !== undefined) set.allowed_vfolder_hosts = json(hostPermissions(props.allowed_vfolder_hosts, 'allowed_vfolder_hosts'));
      if (props.allowed_docker_registries !== undefined) set.allowed_docker_registries = json(registries(props.allowed_docker_registries));
      if (props.integration_id !== undefined) set.integration_id = props.integration_id;
      const newName = props.name && props.name !== args.name ? checkName(props.name, 'domain') : null;
      if (!newName) {
        await dbOf(ctx).updateTable('domains').set(set).where('name', '=', args.name).execute();
        return { domain: await loadDomain(ctx, args.name) };
      }
      if (await loadDomain(ctx, newName)) throw new Problem('generic-bad-request', `Domain ${newName} already exists.`);
      // A rename moves what refers to the domain onto a copy of it, then drops the old row.
      await dbOf(ctx).transaction().execute(async (trx) => {
        await trx
          .insertInto('domains')
          .values({
            name: newName,
            description: current.description,
            is_active: current.is_active,
            created_at: current.created_at,
            total_resource_slots: json(current.total_resource_slots),
            allowed_vfolder_hosts: json(current.allowed_vfolder_hosts),
            allowed_docker_registries: json(current.allowed_docker_registries),
            integration_id: current.integration_id,
            dotfiles: json(current.dotfiles),
          })
          .execute();
        await trx.updateTable('domains').set(set).where('name', '=', newName).execute();
        await trx.updateTable('groups').set({ domain_name: newName }).where('domain_name', '=', args.name).execute();
        await trx.updateTable('users').set({ domain_name: newName }).where('domain_name', '=', args.name).execute();
        await trx.updateTable('sgroups_for_domains').set({ domain: newName }).where('domain', '=', args.name).execute();
        await trx.deleteFrom('domains').where('name', '=', args.name).execute();
      });
      ctx.app.keypairs.invalidate();
      return { domain: await loadDomain(ctx, newName) };
    }),

    delete_domain: mutation(async (args: { name: string }, ctx) => {
      requireSuperadmin(ctx);
      const result = await dbOf(ctx).updateTable('domains').set({ is_active: false, modified_at: new Date() }).where('name', '=', args.name).executeTakeFirst();
      if (!Number(result.numUpdatedRows)) throw notFound('domain');
    }),

    purge_domain: mutation(async (args: { name: string }, ctx) => {
      requireSuperadmin(ctx);
      if (!(await loadDomain(ctx, args.name))) throw notFound('domain');
      const user = await dbOf(ctx).selectFrom('users').select('uuid').where('domain_name', '=', args.name).executeTakeFirst();
      if (user) throw new Problem('generic-bad-request', 'There are users bound to the domain. Purge them first.');
      await dbOf(ctx).transaction().execute(async (trx) => {
        await trx.deleteFrom('groups').where('domain_name', '=', args.name).execute();
        await trx.deleteFrom('domains').where('name', '=', args.name).execute();
      });
    }),
  },
};
