/**
 * Runs one GraphQL request for a caller: parse, validate, execute with the caller's Principal in the context, and
 * format errors. Problems thrown by resolvers keep their slug in `extensions.code`; unexpected failures are logged
 * and reported without internals; nothing here ever turns into an HTTP 5xx.
 */
import { execute, GraphQLError, parse, validate, type DocumentNode, type SourceLocation } from 'graphql';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { PROBLEM_BASE, PROBLEM_TYPES, Problem, type ProblemSlug } from '../http/problem';
import { databaseProblem, type GqlContext } from './context';
import { berthSchema } from './schema';
import { selectedSecrets } from './secret-fields';

export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

export interface FormattedGraphqlError {
  message: string;
  locations?: readonly SourceLocation[];
  path?: readonly (string | number)[];
  extensions: { code: string; type: string; title: string; [key: string]: unknown };
}

export interface GraphqlResponse {
  data?: Record<string, unknown> | null;
  errors?: FormattedGraphqlError[];
}

const MAX_TOKENS = 20_000;

interface CheckedDocument {
  document: DocumentNode;
  invalid: readonly GraphQLError[];
  /** The secret fields it selects (refused when relayed for a browser). */
  secrets: string[];
}

/**
 * Parsed and validated documents by their text: clients (the dashboard above all) send the same few queries again
 * and again, and parsing and validating one costs ~0.3 ms. The schema never changes while the process runs, so a
 * document's verdict does not either. Bounded; the oldest entry goes first.
 */
const documents = new Map<string, CheckedDocument>();
const MAX_DOCUMENTS = 200;

/** Throws the GraphQLError of a document that does not parse. */
function checkedDocument(query: string): CheckedDocument {
  const known = documents.get(query);
  if (known) return known;
  const schema = berthSchema();
  const document = parse(query, { maxTokens: MAX_TOKENS });
  const invalid = validate(schema, document, undefined, { maxErrors: 20 });
  const checked = { document, invalid, secrets: invalid.length ? [] : selectedSecrets(schema, document) };
  if (documents.size >= MAX_DOCUMENTS) documents.delete(documents.keys().next().value!);
  documents.set(query, checked);
  return checked;
}

function extensions(slug: ProblemSlug, title?: string) {
  return { code: slug, type: PROBLEM_BASE + slug, title: title ?? PROBLEM_TYPES[slug][1] };
}

export function formatError(error: GraphQLError, app: App): FormattedGraphqlError {
  const base = {
    message: error.message,
    ...(error.locations ? { locations: error.locations } : {}),
    ...(error.path ? { path: error.path } : {}),
  };
  const original = error.originalError;
  const problem = original instanceof Problem ? original : databaseProblem(original);
  if (problem) return { ...base, message: problem.message, extensions: extensions(problem.slug, problem.title) };
  if (original && !(original instanceof GraphQLError) && error.path) {
    app.log.error({ err: original, path: error.path }, 'GraphQL resolver failed');
    return { ...base, message: 'An unexpected error occurred.', extensions: extensions('internal-server-error') };
  }
  return { ...base, extensions: { ...error.extensions, ...extensions('graphql-error') } };
}

/**
 * `relayed`: the dashboard relays the request for a browser (server/http/relayed.ts); a document selecting a
 * secret field is refused whole (403), before anything runs.
 */
export async function runGraphql(app: App, principal: Principal, request: GraphqlRequest, options: { relayed?: boolean } = {}): Promise<GraphqlResponse> {
  const schema = berthSchema();
  let checked: CheckedDocument;
  try {
    checked = checkedDocument(request.query);
  } catch (error) {
    if (error instanceof GraphQLError) return { errors: [formatError(error, app)] };
    throw error;
  }
  const { document, invalid } = checked;
  if (invalid.length) return { errors: invalid.map((e) => formatError(e, app)) };
  if (options.relayed && checked.secrets.length) {
    throw new Problem('generic-forbidden', `Keys are not available through the dashboard (${checked.secrets.join(', ')}).`);
  }

  const contextValue: GqlContext = { app, principal, softErrors: [], loaders: new Map() };
  const result = await execute({
    schema,
    document,
    contextValue,
    variableValues: request.variables ?? undefined,
    operationName: request.operationName ?? undefined,
  });
  const errors = [...(result.errors ?? []), ...contextValue.softErrors].map((e) => formatError(e, app));
  const response: GraphqlResponse = {};
  if ('data' in result) response.data = (result.data as Record<string, unknown> | null | undefined) ?? null;
  if (errors.length) response.errors = errors;
  return response;
}
