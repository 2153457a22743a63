'use client';
/**
 * The dashboard's one GraphQL client, for every area (sessions, admin, summary, settings): queries go through the
 * relay (/api/manager/admin/gql, signed server-side). A GraphQL error becomes a ManagerError carrying the
 * manager's problem (the slug's title and the message), so pages show it like any other refusal; a mutation
 * answering `{ok: false, msg}` does too.
 *
 * Queries here never select a secret field (`secret_key`, `access_key`, `main_access_key`…): what the relay answers
 * reaches browser JavaScript, so the manager refuses such documents from the relay with 403
 * (server/graphql/secret-fields.ts); keypairs are read through app/api/admin/keypairs, which masks them.
 */
import useSWR, { mutate as globalMutate, type SWRConfiguration, type SWRResponse } from 'swr';
import { ManagerError, type ProblemBody } from '@/components/api/problem';
import { managerSend } from '@/components/api/useManager';
import { PROBLEM_TYPES, type ProblemSlug } from '@/server/http/problem';

interface GraphqlErrorItem {
  message: string;
  extensions?: { code?: string; type?: string; title?: string };
}

interface GraphqlAnswer<T> {
  data?: T | null;
  errors?: GraphqlErrorItem[];
}

function statusOf(code: string | undefined): number {
  if (code && code in PROBLEM_TYPES) return PROBLEM_TYPES[code as ProblemSlug][0];
  return 400;
}

/** The first GraphQL error as a ManagerError (the others are usually consequences of it). */
export function graphqlError(errors: GraphqlErrorItem[]): ManagerError {
  const [first] = errors;
  const code = first.extensions?.code;
  const problem: ProblemBody = {
    type: first.extensions?.type,
    title: first.extensions?.title ?? 'The request was refused.',
    detail: first.message,
    code,
  };
  return new ManagerError(statusOf(code), problem);
}

/** Whether an error says that the manager's schema lacks a field (a feature not available on this manager). */
export function isMissingField(error: unknown, field: string): boolean {
  return (
    error instanceof ManagerError &&
    error.problem.code === 'graphql-error' &&
    typeof error.problem.detail === 'string' &&
    error.problem.detail.includes(`Cannot query field "${field}"`)
  );
}

export async function graphql<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const answer = await managerSend<GraphqlAnswer<T>>('POST', '/admin/gql', { query, variables: variables ?? {} });
  if (answer.errors?.length) throw graphqlError(answer.errors);
  if (answer.data === undefined || answer.data === null) throw new ManagerError(502, { title: 'Empty answer', detail: 'The manager answered without data.' });
  return answer.data;
}

export interface MutationResult {
  ok: boolean | null;
  msg: string | null;
}

/**
 * Runs a mutation and returns its payload (`data[field]`); `ok: false` is thrown as a ManagerError with the
 * manager's message (for instance "Resource preset small already exists.").
 */
export async function graphqlMutation<T extends MutationResult>(field: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const answer = await managerSend<GraphqlAnswer<Record<string, T | null>>>('POST', '/admin/gql', { query, variables });
  const result = answer.data?.[field];
  if (result && result.ok) return result;
  if (answer.errors?.length) throw graphqlError(answer.errors);
  throw new ManagerError(400, { title: 'Not saved', detail: result?.msg ?? 'The manager refused the change.' });
}

/** Reads a GraphQL query with SWR; `null` skips it. */
export function useGraphql<T>(
  query: string | null,
  variables?: Record<string, unknown>,
  config?: SWRConfiguration<T, ManagerError>,
): SWRResponse<T, ManagerError> {
  const key = query ? ['graphql', query, JSON.stringify(variables ?? {})] : null;
  return useSWR<T, ManagerError>(key, () => graphql<T>(query!, variables), config);
}

export { containsPattern, filterString, nameFilter } from './listFilter';

/** JSONString fields arrive as JSON text. */
export function parseJsonField<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string') return (text as T) ?? fallback;
  try {
    return (JSON.parse(text) as T) ?? fallback;
  } catch {
    return fallback;
  }
}

/** Revalidates every cached GraphQL query whose text mentions `field` (e.g. after a mutation elsewhere). */
export function revalidateGraphql(field: string): Promise<unknown> {
  return globalMutate((key) => Array.isArray(key) && key[0] === 'graphql' && typeof key[1] === 'string' && key[1].includes(field));
}
