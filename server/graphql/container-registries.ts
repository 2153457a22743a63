/**
 * Container registries (superadmin only), in Backend.AI's shape: a registry is addressed by its hostname
 * (registry_name) and carries a `config`; one stored row per project of the registry.
 */
import { groupBy, mutation, requireSuperadmin, type ResolverMap } from './context';
import { loadRegistry, loadRows, toRegistry, type RegistryProps } from '../container-registries/values';
import { createContainerRegistry } from '../container-registries/create';
import { modifyContainerRegistry } from '../container-registries/modify';
import { deleteContainerRegistry } from '../container-registries/delete';
import { crudMutations, entityResults, resultTypes } from './sdl';

/** A registry's settings, as read and as written. */
const REGISTRY_SETTINGS = 'project: [String], username: String, password: String, ssl_verify: Boolean, is_global: Boolean';

export const containerRegistryTypeDefs = /* GraphQL */ `
  type ContainerRegistryConfig {
    url: String!
    "docker, harbor, harbor2, github, gitlab, ecr, ecr-public or local."
    type: String!
    ${REGISTRY_SETTINGS}
  }

  type ContainerRegistry {
    id: ID
    hostname: String
    registry_name: String
    url: String
    type: String
    ${REGISTRY_SETTINGS}
    config: ContainerRegistryConfig
  }

  input CreateContainerRegistryInput {
    url: String!
    type: String!
    ${REGISTRY_SETTINGS}
  }

  input ModifyContainerRegistryInput {
    url: String
    type: String
    ${REGISTRY_SETTINGS}
  }

  ${resultTypes(entityResults('ContainerRegistry', 'container_registry', ['Create', 'Modify', 'Delete']))}

  extend type Query {
    container_registry(hostname: String!): ContainerRegistry
    container_registries: [ContainerRegistry]
  }

  extend type Mutation {
    ${crudMutations('container_registry', 'ContainerRegistry', 'hostname: String!')}
  }
`;

export const containerRegistryResolvers: ResolverMap = {
  Query: {
    container_registry: (_root, args: { hostname: string }, ctx) => {
      requireSuperadmin(ctx);
      return loadRegistry(ctx.app, args.hostname);
    },
    container_registries: async (_root, _args, ctx) => {
      requireSuperadmin(ctx);
      return [...groupBy(await loadRows(ctx.app), (r) => r.registry_name).values()].map(toRegistry);
    },
  },
  Mutation: {
    create_container_registry: mutation((args: { hostname: string; props: RegistryProps & { url: string; type: string } }, ctx) => createContainerRegistry(ctx.app, ctx.principal, args)),

    modify_container_registry: mutation((args: { hostname: string; props: RegistryProps }, ctx) => modifyContainerRegistry(ctx.app, ctx.principal, args)),

    delete_container_registry: mutation((args: { hostname: string }, ctx) => deleteContainerRegistry(ctx.app, ctx.principal, args)),
  },
};
