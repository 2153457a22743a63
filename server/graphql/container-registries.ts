/**
 * Container registries (superadmin only), in Backend.AI's shape: a registry is addressed by its hostname
 * (registry_name) and carries a `config`; one stored row per project of the registry.
 */
import { randomUUID } from 'node:crypto';
import type { Updateable } from 'kysely';
import type { ContainerRegistryTable } from '../db/schema';
import { Problem } from '../http/problem';
import { dbOf, given, groupBy, invalid, mutation, notFound, requireSuperadmin, type GqlContext, type ResolverMap } from './context';
import { checkName, oneOf } from '../admin/values';

export const containerRegistryTypeDefs = /* GraphQL */ `
  type ContainerRegistryConfig {
    url: String!
    "docker, harbor, harbor2, github, gitlab, ecr, ecr-public or local."
    type: String!
    project: [String]
    username: String
    password: String
    ssl_verify: Boolean
    is_global: Boolean
  }

  type ContainerRegistry {
    id: ID
    hostname: String
    registry_name: String
    url: String
    type: String
    project: [String]
    username: String
    password: String
    ssl_verify: Boolean
    is_global: Boolean
    config: ContainerRegistryConfig
  }

  input CreateContainerRegistryInput {
    url: String!
    type: String!
    project: [String]
    username: String
    password: String
    ssl_verify: Boolean
    is_global: Boolean
  }

  input ModifyContainerRegistryInput {
    url: String
    type: String
    project: [String]
    username: String
    password: String
    ssl_verify: Boolean
    is_global: Boolean
  }

  type CreateContainerRegistry { ok: Boolean, msg: String, container_registry: ContainerRegistry }
  type ModifyContainerRegistry { ok: Boolean, msg: String, container_registry: ContainerRegistry }
  type DeleteContainerRegistry { ok: Boolean, msg: String, container_registry: ContainerRegistry }

  extend type Query {
    container_registry(hostname: String!): ContainerRegistry
    container_registries: [ContainerRegistry]
  }

  extend type Mutation {
    create_container_registry(hostname: String!, props: CreateContainerRegistryInput!): CreateContainerRegistry
    modify_container_registry(hostname: String!, props: ModifyContainerRegistryInput!): ModifyContainerRegistry
    delete_container_registry(hostname: String!): DeleteContainerRegistry
  }
`;

const REGISTRY_TYPES = ['docker', 'harbor', 'harbor2', 'github', 'gitlab', 'ecr', 'ecr-public', 'local'] as const;

type RegistryRow = Awaited<ReturnType<typeof loadRows>>[number];

function loadRows(ctx: GqlContext, hostname?: string) {
  let q = dbOf(ctx).selectFrom('container_registries').selectAll();
  if (hostname !== undefined) q = q.where('registry_name', '=', hostname);
  return q.orderBy('registry_name').orderBy('project').execute();
}

/** One registry object from the rows sharing a registry_name. */
function toRegistry(rows: RegistryRow[]) {
  const first = rows[0];
  const projects = rows.map((r) => r.project).filter((p): p is string => p !== null);
  const config = {
    url: first.url,
    type: first.type,
    project: projects,
    username: first.username,
    password: first.password,
    ssl_verify: first.ssl_verify,
    is_global: first.is_global,
  };
  return { id: first.id, hostname: first.registry_name, registry_name: first.registry_name, ...config, config };
}

async function loadRegistry(ctx: GqlContext, hostname: string) {
  const rows = await loadRows(ctx, hostname);
  return rows.length ? toRegistry(rows) : null;
}

function projectList(list: (string | null)[] | null | undefined): (string | null)[] {
  const projects = [...new Set((list ?? []).filter((p): p is string => typeof p === 'string' && p.trim() !== ''))];
  return projects.length ? projects : [null];
}

function checkUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw invalid(`url must be an http(s) URL: ${url}`);
  }
  return url;
}

interface RegistryProps {
  url?: string | null;
  type?: string | null;
  project?: (string | null)[] | null;
  username?: string | null;
  password?: string | null;
  ssl_verify?: boolean | null;
  is_global?: boolean | null;
}

export const containerRegistryResolvers: ResolverMap = {
  Query: {
    container_registry: (_root, args: { hostname: string }, ctx) => {
      requireSuperadmin(ctx);
      return loadRegistry(ctx, args.hostname);
    },
    container_registries: async (_root, _args, ctx) => {
      requireSuperadmin(ctx);
      return [...groupBy(await loadRows(ctx), (r) => r.registry_name).values()].map(toRegistry);
    },
  },
  Mutation: {
    create_container_registry: mutation(async (args: { hostname: string; props: RegistryProps & { url: string; type: string } }, ctx) => {
      requireSuperadmin(ctx);
      const hostname = checkName(args.hostname, 'registry');
      const props = args.props;
      if (await loadRegistry(ctx, hostname)) throw new Problem('generic-bad-request', `Container registry ${hostname} already exists.`);
      const base = {
        url: checkUrl(props.url),
        registry_name: hostname,
        type: oneOf(props.type, REGISTRY_TYPES, 'type'),
        username: props.username ?? null,
        password: props.password ?? null,
        ssl_verify: props.ssl_verify ?? true,
        is_global: props.is_global ?? true,
      };
      await dbOf(ctx)
        .insertInto('container_registries')
        .values(projectList(props.project).map((project) => ({ ...base, id: randomUUID(), project })))
        .execute();
      return { container_registry: await loadRegistry(ctx, hostname) };
    }),

    modify_container_registry: mutation(async (args: { hostname: string; props: RegistryProps }, ctx) => {
      requireSuperadmin(ctx);
      const current = await loadRegistry(ctx, args.hostname);
      if (!current) throw notFound('container registry');
      const props = given(args.props);
      const set: Updateable<ContainerRegistryTable> = {};
      if (props.url) set.url = checkUrl(props.url);
      if (props.type) set.type = oneOf(props.type, REGISTRY_TYPES, 'type');
      if (props.username !== undefined) set.username = props.username;
      if (props.password !== undefined) set.password = props.password;
      if (props.ssl_verify !== undefined && props.ssl_verify !== null) set.ssl_verify = props.ssl_verify;
      if (props.is_global !== undefined && props.is_global !== null) set.is_global = props.is_global;
      await dbOf(ctx).transaction().execute(async (trx) => {
        if (Object.keys(set).length) await trx.updateTable('container_registries').set(set).where('registry_name', '=', args.hostname).execute();
        if (props.project !== undefined) {
          // The project list is replaced: rows of dropped projects go, new projects get a row like the others.
          const wanted = projectList(props.project);
          const rows = await trx.selectFrom('container_registries').selectAll().where('registry_name', '=', args.hostname).execute();
          const template = rows[0];
          const drop = rows.filter((r) => !wanted.includes(r.project)).map((r) => r.id);
          if (drop.length) await trx.deleteFrom('container_registries').where('id', 'in', drop).execute();
          const have = new Set(rows.map((r) => r.project));
          const add = wanted.filter((p) => !have.has(p));
          if (add.length) {
            await trx
              .insertInto('container_registries')
              .values(
                add.map((project) => ({
                  id: randomUUID(),
                  url: template.url,
                  registry_name: template.registry_name,
                  type: template.type,
                  project,
                  username: template.username,
                  password: template.password,
                  ssl_verify: template.ssl_verify,
                  is_global: template.is_global,
                })),
              )
              .execute();
          }
        }
      });
      return { container_registry: await loadRegistry(ctx, args.hostname) };
    }),

    delete_container_registry: mutation(async (args: { hostname: string }, ctx) => {
      requireSuperadmin(ctx);
      const current = await loadRegistry(ctx, args.hostname);
      if (!current) throw notFound('container registry');
      await dbOf(ctx).deleteFrom('container_registries').where('registry_name', '=', args.hostname).execute();
      return { container_registry: current };
    }),
  },
};
