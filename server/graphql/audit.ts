/**
 * Audit records of GraphQL mutations: one per mutation field of the operation that ran, named by the mutation
 * (`modify_keypair_resource_policy`), its id-like arguments as the target (never `props` or other input objects,
 * which may hold passwords), and its outcome: the status of the error on that field, 400 for `ok: false`, else 200.
 * Queries are not recorded. The document is parsed again here only when its text mentions a mutation.
 */
import { Kind, parse, type DocumentNode, type FieldNode, type OperationDefinitionNode, type ValueNode } from 'graphql';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import type { GraphqlRequest, GraphqlResponse } from './execute';
import { PROBLEM_TYPES, type ProblemSlug } from '../http/problem';
import { auditOf, clip } from '../audit/writer';

/** Arguments that name what a mutation acts on. */
const TARGET_ARGUMENTS = new Set(['id', 'name', 'email', 'access_key', 'user_id', 'domain_name', 'group_id', 'gid', 'uuid', 'target', 'vfolder_id', 'quota_scope_id', 'storage_host_name', 'image_id', 'alias', 'session_id', 'endpoint_id', 'registry']);

export interface GraphqlCaller {
  app: App;
  principal: Principal;
  requestId: string;
  clientIp: string;
}

function operationOf(document: DocumentNode, name: string | null | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return name ? operations.find((o) => o.name?.value === name) : operations.length === 1 ? operations[0] : undefined;
}

function scalar(value: ValueNode, variables: Record<string, unknown>): string | undefined {
  if (value.kind === Kind.STRING || value.kind === Kind.INT || value.kind === Kind.FLOAT || value.kind === Kind.ENUM) return String(value.value);
  if (value.kind === Kind.VARIABLE) {
    const given = variables[value.name.value];
    return typeof given === 'string' || typeof given === 'number' ? String(given) : undefined;
  }
  return undefined;
}

function targetOf(field: FieldNode, variables: Record<string, unknown>): string | null {
  const target: Record<string, string> = {};
  for (const arg of field.arguments ?? []) {
    if (!TARGET_ARGUMENTS.has(arg.name.value)) continue;
    const value = scalar(arg.value, variables);
    if (value !== undefined) target[arg.name.value] = clip(value)!;
  }
  return Object.keys(target).length ? JSON.stringify(target) : null;
}

function statusOf(alias: string, response: GraphqlResponse): number {
  const error = response.errors?.find((e) => e.path?.[0] === alias) ?? (response.data ? undefined : response.errors?.[0]);
  if (error) return PROBLEM_TYPES[error.extensions.code as ProblemSlug]?.[0] ?? 400;
  const payload = response.data?.[alias] as { ok?: unknown } | null | undefined;
  return payload && payload.ok === false ? 400 : 200;
}

/** Records the mutations a GraphQL request ran (or tried); returns the response unchanged. */
export function auditGraphql(caller: GraphqlCaller, request: GraphqlRequest, response: GraphqlResponse): GraphqlResponse {
  if (!caller.app.settings.observeRequests || !/\bmutation\b/.test(request.query)) return response;
  let operation: OperationDefinitionNode | undefined;
  try {
    operation = operationOf(parse(request.query), request.operationName);
  } catch {
    return response; // Not a document: nothing ran.
  }
  if (operation?.operation !== 'mutation') return response;
  const variables = request.variables ?? {};
  const writer = auditOf(caller.app);
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || selection.name.value.startsWith('__')) continue;
    const alias = selection.alias?.value ?? selection.name.value;
    writer.record({
      created_at: new Date(),
      actor_email: caller.principal.email,
      access_key: caller.principal.accessKey,
      client_ip: caller.clientIp,
      action: selection.name.value,
      target: targetOf(selection, variables),
      status: String(statusOf(alias, response)),
      request_id: caller.requestId,
    });
  }
  return response;
}
