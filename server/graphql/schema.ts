/**
 * The GraphQL schema (CONTRACT §16), assembled from one SDL + resolver module per object family with graphql's own
 * buildASTSchema; resolvers and scalar implementations are attached to the built types. Every mutation is refused
 * with `server-frozen` while the manager is frozen; queries keep working.
 */
import { buildASTSchema, isObjectType, isScalarType, parse, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { Problem } from '../http/problem';
import type { Resolver, ResolverMap } from './context';
import { scalarResolvers, scalarTypeDefs } from './scalars';
import { domainResolvers, domainTypeDefs } from './domains';
import { groupResolvers, groupTypeDefs } from './groups';
import { userResolvers, userTypeDefs } from './users';
import { keypairResolvers, keypairTypeDefs } from './keypairs';
import { resourcePolicyResolvers, resourcePolicyTypeDefs } from './resource-policies';
import { presetResolvers, presetTypeDefs } from './presets';
import { scalingGroupResolvers, scalingGroupTypeDefs } from './scaling-groups';
import { agentResolvers, agentTypeDefs } from './agents';
import { containerRegistryResolvers, containerRegistryTypeDefs } from './container-registries';
import { imageResolvers, imageTypeDefs } from './images';
import { imageMutationResolvers, imageMutationTypeDefs } from './image-mutations';
import { sessionResolvers, sessionTypeDefs } from './sessions';
import { queueResolvers, queueTypeDefs } from './queue';
import { endpointResolvers, endpointTypeDefs } from './endpoints';
import { vfolderResolvers, vfolderTypeDefs } from './vfolders';
import { quotaScopeResolvers, quotaScopeTypeDefs } from './quota-scopes';
import { vfolderPermissionResolvers, vfolderPermissionTypeDefs } from './vfolder-permissions';
import { auditLogResolvers, auditLogTypeDefs } from './audit-log';

/** The roots; each family extends them. */
const rootTypeDefs = /* GraphQL */ `
  type Query
  type Mutation
`;

const families: { typeDefs: string; resolvers: ResolverMap }[] = [
  { typeDefs: vfolderTypeDefs, resolvers: vfolderResolvers },
  { typeDefs: quotaScopeTypeDefs, resolvers: quotaScopeResolvers },
  { typeDefs: vfolderPermissionTypeDefs, resolvers: vfolderPermissionResolvers },
  { typeDefs: domainTypeDefs, resolvers: domainResolvers },
  { typeDefs: groupTypeDefs, resolvers: groupResolvers },
  { typeDefs: userTypeDefs, resolvers: userResolvers },
  { typeDefs: keypairTypeDefs, resolvers: keypairResolvers },
  { typeDefs: resourcePolicyTypeDefs, resolvers: resourcePolicyResolvers },
  { typeDefs: presetTypeDefs, resolvers: presetResolvers },
  { typeDefs: scalingGroupTypeDefs, resolvers: scalingGroupResolvers },
  { typeDefs: agentTypeDefs, resolvers: agentResolvers },
  { typeDefs: containerRegistryTypeDefs, resolvers: containerRegistryResolvers },
  { typeDefs: imageTypeDefs, resolvers: imageResolvers },
  { typeDefs: imageMutationTypeDefs, resolvers: imageMutationResolvers },
  { typeDefs: sessionTypeDefs, resolvers: sessionResolvers },
  { typeDefs: queueTypeDefs, resolvers: queueResolvers },
  { typeDefs: endpointTypeDefs, resolvers: endpointResolvers },
  { typeDefs: auditLogTypeDefs, resolvers: auditLogResolvers },
];

export const FROZEN_MESSAGE = 'server-frozen: the manager is frozen for maintenance; mutations are refused until it runs again.';

function unlessFrozen(resolve: Resolver): Resolver {
  return (root, args, ctx, info) => {
    if (ctx.app.manager.frozen) throw new Problem('server-frozen', FROZEN_MESSAGE);
    return resolve(root, args, ctx, info);
  };
}

/** Sets each resolver on its field; a resolver without a field, or defined twice, is a programming error. */
function attachResolvers(schema: GraphQLSchema, maps: ResolverMap[]): void {
  const seen = new Set<string>();
  for (const map of maps) {
    for (const [typeName, fields] of Object.entries(map)) {
      const type = schema.getType(typeName);
      if (!isObjectType(type)) throw new Error(`GraphQL resolvers given for ${typeName}, which is not an object type`);
      const defined = type.getFields();
      for (const [fieldName, resolve] of Object.entries(fields)) {
        const key = `${typeName}.${fieldName}`;
        const field = defined[fieldName];
        if (!field) throw new Error(`GraphQL resolver ${key} has no field in the schema`);
        if (seen.has(key)) throw new Error(`GraphQL resolver ${key} is defined twice`);
        seen.add(key);
        field.resolve = (typeName === 'Mutation' ? unlessFrozen(resolve) : resolve) as GraphQLFieldResolver<unknown, unknown>;
      }
    }
  }
}

export function buildSchema(): GraphQLSchema {
  const document = parse([scalarTypeDefs, rootTypeDefs, ...families.map((f) => f.typeDefs)].join('\n'));
  const schema = buildASTSchema(document);
  for (const [name, impl] of Object.entries(scalarResolvers)) {
    const type = schema.getType(name);
    if (!isScalarType(type)) throw new Error(`GraphQL scalar ${name} is not declared`);
    type.description = impl.description;
    type.serialize = impl.serialize;
    type.parseValue = impl.parseValue;
    type.parseLiteral = impl.parseLiteral;
  }
  attachResolvers(schema, families.map((f) => f.resolvers));
  return schema;
}

let schema: GraphQLSchema | undefined;

/** The schema, built once per process. */
export function berthSchema(): GraphQLSchema {
  schema ??= buildSchema();
  return schema;
}
