/**
 * /api/admin/keypairs: the admin pages' view of one user's keypairs, through the manager's GraphQL signed with the
 * signed-in admin's keys. A keypair's identifier is its access key, which must not reach the browser, so this
 * route answers with an opaque id (an HMAC of the access key under the dashboard's secret) and a hint (`AK…WXYZ`)
 * instead, and turns the id back into the access key server-side for changes. Secret keys are never read.
 *
 *   GET   ?email=<user>                              → {keypairs: [MaskedKeypair]}
 *   POST  {email, is_admin?, rate_limit?, resource_policy?}  → {keypair: MaskedKeypair}    (create_keypair)
 *   PATCH {email, id, is_active?, is_admin?, rate_limit?, resource_policy?} → {keypair: MaskedKeypair} (modify_keypair)
 *
 * The manager decides who may do what (admins within their domain, superadmins everywhere).
 */
import { createHmac } from 'node:crypto';
import type { NextRequest } from 'next/server';
import { z } from 'zod';
import { keysFromRequest } from '@/app/lib/auth';
import { managerClientFor, problemResponse } from '@/app/lib/manager';
import { isSameOrigin } from '@/app/lib/origin';
import { ApiError, type Credentials } from '@/server/client/client';
import { PROBLEM_BASE, PROBLEM_TYPES, type ProblemSlug } from '@/server/http/problem';
import type { KeypairRow, MaskedKeypair } from '@/components/admin/users/keypairTypes';

const KEYPAIR_FIELDS = 'access_key is_active is_admin resource_policy rate_limit num_queries created_at last_used';
const PAGE = 100;
const MAX_BODY_BYTES = 16 * 1024;

interface GraphqlAnswer<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string; title?: string } }[];
}

/** A failure to hand to the browser as problem+json. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly problem: Record<string, unknown>,
  ) {
    super(String(problem.detail ?? 'refused'));
  }
}

function problemJson(status: number, problem: Record<string, unknown>): Response {
  return new Response(JSON.stringify(problem), { status, headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store' } });
}

function refusalOf(slug: ProblemSlug, detail: string, title?: string): Refusal {
  const [status, defaultTitle] = PROBLEM_TYPES[slug];
  return new Refusal(status, { type: PROBLEM_BASE + slug, title: title ?? defaultTitle, detail });
}

function keypairId(accessKey: string): string {
  const secret = process.env.NEXTAUTH_SECRET;
  if (!secret) throw new Error('NEXTAUTH_SECRET is not set: the dashboard must run inside Berth (npm start).');
  return createHmac('sha256', secret).update(`keypair-id:${accessKey}`).digest('base64url').slice(0, 24);
}

function mask(row: KeypairRow, mainAccessKey: string | null): MaskedKeypair {
  const { access_key: accessKey, ...rest } = row;
  return {
    id: keypairId(accessKey),
    hint: `${accessKey.slice(0, 2)}…${accessKey.slice(-4)}`,
    is_main: accessKey === mainAccessKey,
    ...rest,
  };
}

async function graphql<T>(keys: Credentials, query: string, variables: Record<string, unknown>): Promise<T> {
  let answer: GraphqlAnswer<T>;
  try {
    answer = await managerClientFor(keys).call<GraphqlAnswer<T>>('POST', '/admin/gql', { body: { query, variables } });
  } catch (err) {
    if (err instanceof ApiError) throw new Refusal(err.status, err.problem);
    console.error('dashboard keypairs: the manager is unreachable', err instanceof Error ? err.message : err);
    throw refusalOf('service-unavailable', 'The manager could not be reached. Try again shortly.');
  }
  const error = answer.errors?.[0];
  if (error) {
    const code = error.extensions?.code;
    const slug = (code && code in PROBLEM_TYPES ? code : 'graphql-error') as ProblemSlug;
    throw refusalOf(slug, error.message, error.extensions?.title);
  }
  if (!answer.data) throw refusalOf('general-error', 'The manager answered without data.');
  return answer.data;
}

/** Every keypair of the user (the manager pages by 100), and which one is the user's main key. */
async function keypairsOf(keys: Credentials, email: string): Promise<{ rows: KeypairRow[]; main: string | null }> {
  const rows: KeypairRow[] = [];
  let main: string | null = null;
  for (let offset = 0; ; offset += PAGE) {
    const data = await graphql<{ keypair_list: { total_count: number; items: KeypairRow[] }; user: { main_access_key: string | null } | null }>(
      keys,
      `query($email: String, $offset: Int) {
        keypair_list(limit: ${PAGE}, offset: $offset, email: $email, order: "created_at") { total_count items { ${KEYPAIR_FIELDS} } }
        user(email: $email) { main_access_key }
      }`,
      { email, offset },
    );
    if (!data.user) throw refusalOf('object-not-found', `No user ${email} within your reach.`, 'No such user.');
    main = data.user.main_access_key;
    rows.push(...data.keypair_list.items);
    if (rows.length >= data.keypair_list.total_count || data.keypair_list.items.length === 0) break;
  }
  return { rows, main };
}

async function mutation<T>(keys: Credentials, field: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const data = await graphql<Record<string, { ok: boolean; msg: string } & T>>(keys, query, variables);
  const result = data[field];
  if (!result?.ok) throw refusalOf('invalid-api-params', result?.msg ?? 'The manager refused the change.', 'Not saved');
  return result;
}

const email = z.string().min(3).max(256);
const rateLimit = z.number().int().min(0).max(2_147_483_647).nullable();
const createInput = z.object({ email, is_admin: z.boolean().optional(), rate_limit: rateLimit.optional(), resource_policy: z.string().min(1).max(256).optional() });
const modifyInput = z.object({
  email,
  id: z.string().min(1).max(64),
  is_active: z.boolean().optional(),
  is_admin: z.boolean().optional(),
  rate_limit: rateLimit.optional(),
  resource_policy: z.string().min(1).max(256).optional(),
});

async function readJson<T>(req: NextRequest, schema: z.ZodType<T>): Promise<T> {
  const text = await req.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw refusalOf('payload-too-large', 'The request is too large.');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw refusalOf('invalid-api-params', 'The request body is not valid JSON.');
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw refusalOf('invalid-api-params', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

type Handler = (req: NextRequest, keys: Credentials) => Promise<unknown>;

function handle(run: Handler, mutating: boolean) {
  return async (req: NextRequest): Promise<Response> => {
    if (mutating && !isSameOrigin(req)) return problemResponse('generic-forbidden', 'Cross-origin requests to the dashboard API are refused.');
    const keys = await keysFromRequest(req);
    if (!keys) return problemResponse('auth-failed', 'Sign in to the dashboard first.');
    try {
      return new Response(JSON.stringify(await run(req, keys)), { headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } });
    } catch (err) {
      if (err instanceof Refusal) return problemJson(err.status, err.problem);
      throw err;
    }
  };
}

export const GET = handle(async (req, keys) => {
  const parsed = email.safeParse(req.nextUrl.searchParams.get('email') ?? '');
  if (!parsed.success) throw refusalOf('invalid-api-params', 'email: give the user whose keypairs to list.');
  const { rows, main } = await keypairsOf(keys, parsed.data);
  return { keypairs: rows.map((row) => mask(row, main)) };
}, false);

export const POST = handle(async (req, keys) => {
  const input = await readJson(req, createInput);
  const props: Record<string, unknown> = { is_active: true, is_admin: input.is_admin ?? false };
  if (input.rate_limit !== undefined) props.rate_limit = input.rate_limit;
  if (input.resource_policy) props.resource_policy = input.resource_policy;
  const created = await mutation<{ keypair: KeypairRow | null }>(
    keys,
    'create_keypair',
    `mutation($user: String!, $props: KeyPairInput!) { create_keypair(user_id: $user, props: $props) { ok msg keypair { ${KEYPAIR_FIELDS} } } }`,
    { user: input.email, props },
  );
  if (!created.keypair) throw refusalOf('general-error', 'The keypair was created but could not be read back.');
  const { main } = await keypairsOf(keys, input.email);
  return { keypair: mask(created.keypair, main) };
}, true);

export const PATCH = handle(async (req, keys) => {
  const input = await readJson(req, modifyInput);
  const { rows, main } = await keypairsOf(keys, input.email);
  const target = rows.find((row) => keypairId(row.access_key) === input.id);
  if (!target) throw refusalOf('object-not-found', 'This keypair no longer exists.', 'No such keypair.');
  const props: Record<string, unknown> = {};
  if (input.is_active !== undefined) props.is_active = input.is_active;
  if (input.is_admin !== undefined) props.is_admin = input.is_admin;
  if (input.rate_limit !== undefined) props.rate_limit = input.rate_limit;
  if (input.resource_policy !== undefined) props.resource_policy = input.resource_policy;
  const modified = await mutation<{ keypair: KeypairRow | null }>(
    keys,
    'modify_keypair',
    `mutation($key: String!, $props: ModifyKeyPairInput!) { modify_keypair(access_key: $key, props: $props) { ok msg keypair { ${KEYPAIR_FIELDS} } } }`,
    { key: target.access_key, props },
  );
  return { keypair: mask(modified.keypair ?? target, main) };
}, true);
