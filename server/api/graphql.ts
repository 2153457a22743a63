/**
 * §GraphQL (CONTRACT §16). `/admin/gql` (alias `//gql`) answers the standard `{data, errors}` with 200;
 * `/admin/graphql` (alias `//graphql`, legacy) answers the bare `data`, and any error as 400 `graphql-error`
 * whose `data` is the errors array. Mutations are refused while the manager is frozen (server/graphql/schema). A
 * document selecting a secret field is refused with 403 when the dashboard relays it (server/graphql/secret-fields).
 */
import { z } from 'zod';
import { route, type RouteDef } from '../http/route';
import { Problem } from '../http/problem';
import { runGraphql, type GraphqlRequest } from '../graphql/execute';
import { berthSchema } from '../graphql/schema';
import { auditGraphql } from '../graphql/audit';

// Built when the routes load, so a schema that does not build stops the manager at start instead of failing requests.
berthSchema();

/** `variables` is an object; a JSON text holding one is accepted too. */
function jsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

const input = z.object({
  query: z.string().min(1),
  variables: z.preprocess(jsonText, z.record(z.string(), z.unknown()).nullish()),
  operation_name: z.string().nullish(),
  operationName: z.string().nullish(),
});

type GraphqlInput = z.infer<typeof input>;
/** Documents and variables hold text people wrote (descriptions, scripts); names are checked by the resolvers. */
const GRAPHQL_TEXT = ['query', 'variables'];

function request(body: GraphqlInput): GraphqlRequest {
  return { query: body.query, variables: body.variables, operationName: body.operation_name ?? body.operationName };
}

export const graphqlRoutes: RouteDef[] = [
  route({
    method: 'POST', path: ['/admin/gql', '//gql'], privilege: 'user', status: null, input, freeText: GRAPHQL_TEXT,
    summary: 'Run a GraphQL query or mutation → {data, errors}',
    response: 'The standard GraphQL answer: {"data": …, "errors": […]} (errors only when there are some), always 200.',
    handler: async (ctx) => auditGraphql(ctx, request(ctx.input), await runGraphql(ctx.app, ctx.principal, request(ctx.input), { relayed: ctx.relayed })),
  }),
  route({
    method: 'POST', path: ['/admin/graphql', '//graphql'], privilege: 'user', status: null, input, freeText: GRAPHQL_TEXT,
    summary: 'Run a GraphQL query or mutation (legacy) → data',
    response: 'The bare data object; any error → 400 graphql-error with data = the errors array.',
    handler: async (ctx) => {
      const result = auditGraphql(ctx, request(ctx.input), await runGraphql(ctx.app, ctx.principal, request(ctx.input), { relayed: ctx.relayed }));
      if (result.errors?.length) {
        throw new Problem('graphql-error', result.errors.map((e) => e.message).join('\n'), result.errors);
      }
      return result.data ?? {};
    },
  }),
];
