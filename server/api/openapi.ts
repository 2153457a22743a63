/** Serves an OpenAPI 3.1 document generated from the route tables, so the reference never drifts. */
import { z } from 'zod';
import { paths } from '../http/router';
import { route, type RouteDef } from '../http/route';
import { PROBLEM_BASE } from '../http/problem';
import { API_VERSION, BERTH_VERSION } from '../version';

function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

type JsonSchema = z.core.JSONSchema.BaseSchema;
type Json = Record<string, unknown>;

function schemaOf(input: z.ZodType | undefined): JsonSchema {
  if (!input) return { type: 'object' };
  try {
    return z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' });
  } catch {
    return { type: 'object' };
  }
}

export function buildOpenApi(routes: RouteDef[]): object {
  const docPaths: Record<string, Record<string, Json>> = {};
  const doc = {
    openapi: '3.1.0',
    info: { title: 'Berth manager API', version: `${API_VERSION} (Berth ${BERTH_VERSION})`, description: 'Every request except those marked "security: []" is signed as described in the README (HMAC-SHA256, Svc scheme).' },
    components: {
      securitySchemes: { svcSignature: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Svc signMethod=HMAC-SHA256, credential=<ACCESS_KEY>:<SIGNATURE>' } },
      schemas: {
        Problem: { type: 'object', properties: { type: { type: 'string', description: `${PROBLEM_BASE}<slug>` }, title: { type: 'string' }, detail: { type: 'string' }, data: {} }, required: ['type', 'title', 'detail'] },
      },
    },
    paths: docPaths,
  };
  for (const r of routes) {
    for (const path of paths(r)) {
      const oaPath = toOpenApiPath(path);
      const pathParams = [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
      const schema = schemaOf(r.input);
      const properties = schema.properties ?? {};
      const required: string[] = schema.required ?? [];
      const parameters: Json[] = pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
      const op: Json = {
        summary: r.summary,
        'x-privilege': r.privilege,
        'x-manager-status': r.status,
        security: r.privilege === 'none' ? [] : [{ svcSignature: [] }],
        responses: {
          '200': { description: r.response ?? 'Success', content: { [r.stream === 'sse' ? 'text/event-stream' : 'application/json']: { schema: {} } } },
          default: { description: 'Error', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
        },
      };
      const queryProps = Object.entries(properties).filter(([name]) => !pathParams.includes(name));
      if (r.method === 'GET' || r.method === 'HEAD' || r.method === 'DELETE') {
        for (const [name, prop] of queryProps) parameters.push({ name, in: 'query', required: required.includes(name), schema: prop });
      } else if (queryProps.length) {
        op.requestBody = {
          content: {
            'application/json': {
              schema: { type: 'object', properties: Object.fromEntries(queryProps), required: required.filter((n) => !pathParams.includes(n)) },
            },
          },
        };
      }
      if (parameters.length) op.parameters = parameters;
      (docPaths[oaPath] ??= {})[r.method.toLowerCase()] = op;
    }
  }
  return doc;
}

export function openApiRoutes(allRoutes: () => RouteDef[]) {
  let cached: object | undefined;
  return [
    route({
      method: 'GET',
      path: '/openapi.json',
      privilege: 'none',
      status: null,
      summary: 'This OpenAPI 3.1 document (unsigned)',
      handler: () => (cached ??= buildOpenApi(allRoutes())),
    }),
  ];
}
