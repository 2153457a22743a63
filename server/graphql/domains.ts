/** Domains: read by superadmins (any) and members (their own); managed by superadmins. */
import { isSuperadmin } from '../auth/principal';
import type { Domain } from '../db/schema';
import { Problem } from '../http/problem';
import { associatedScalingGroups, dbOf, mutation, requireSuperadmin, type ResolverMap } from './context';
import { loadDomain, type DomainProps } from '../domains/values';
import { createDomain } from '../domains/create';
import { modifyDomain } from '../domains/modify';
import { deleteDomain } from '../domains/delete';
import { purgeDomain } from '../domains/purge';
import { entityResults, resultTypes } from './sdl';

/** What creating and modifying a domain both set. */
const DOMAIN_SETTINGS = /* GraphQL */ `
    description: String
    is_active: Boolean
    total_resource_slots: JSONString
    allowed_vfolder_hosts: JSONString
    allowed_docker_registries: [String]
    integration_id: String`;

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
    ${DOMAIN_SETTINGS}
  }

  input ModifyDomainInput {
    name: String
    ${DOMAIN_SETTINGS}
  }

  ${resultTypes({ ...entityResults('Domain', 'domain', ['Create', 'Modify']), DeleteDomain: '', PurgeDomain: '' })}

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

export const domainResolvers: ResolverMap = {
  Query: {
    async domain(_root, args: { name?: string | null }, ctx) {
      const name = args.name ?? ctx.principal.domainName;
      if (!isSuperadmin(ctx.principal) && name !== ctx.principal.domainName) {
        throw new Problem('generic-forbidden', 'You may read only your own domain.');
      }
      return (await loadDomain(ctx.app, name)) ?? null;
    },
    async domains(_root, args: { is_active?: boolean | null }, ctx) {
      requireSuperadmin(ctx);
      let q = dbOf(ctx).selectFrom('domains').selectAll();
      if (args.is_active !== undefined && args.is_active !== null) q = q.where('is_active', '=', args.is_active);
      return q.orderBy('name').execute();
    },
  },
  Domain: {
    scaling_groups: (domain: Domain, _args, ctx) => associatedScalingGroups(ctx, 'domain', domain.name),
  },
  Mutation: {
    create_domain: mutation((args: { name: string; props: DomainProps }, ctx) => createDomain(ctx.app, ctx.principal, args)),

    modify_domain: mutation((args: { name: string; props: DomainProps }, ctx) => modifyDomain(ctx.app, ctx.principal, args)),

    delete_domain: mutation((args: { name: string }, ctx) => deleteDomain(ctx.app, ctx.principal, args)),

    purge_domain: mutation((args: { name: string }, ctx) => purgeDomain(ctx.app, ctx.principal, args)),
  },
};
