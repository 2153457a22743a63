/**
 * A property-based fuzzer over the whole API, generated from the route table through the document /openapi.json
 * serves (server/api/openapi.ts): for every operation, requests with hostile values in every path parameter,
 * query value and body field (control characters, huge and negative numbers, wrong types, deep nesting, long
 * strings, unicode, encoded separators), sent signed by a superadmin or a plain user, with or without the
 * dashboard's relay mark. No answer may be a 5xx, and every 4xx must be application/problem+json.
 *
 * Requests come from fast-check with a seed: BERTH_FUZZ_SEED=<seed> replays a run, BERTH_FUZZ_RUNS sets the
 * number of requests per operation (default 12, to keep the whole run under a minute per database in CI).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestBerth, type TestBerth } from '../helpers/berth';
import { allRoutes } from '../../server/api';
import { buildOpenApi } from '../../server/api/openapi';
import { BerthClient } from '../../server/client/client';
import { RELAYED_HEADER } from '../../server/http/relayed';

const SEED = Number(process.env.BERTH_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.BERTH_FUZZ_RUNS ?? 12);
/** Node refuses request lines past 16 KiB before any route sees them: values in the URL stay below that. */
const URL_TEXT_MAX = 1500;

type Schema = Record<string, any>;

interface Operation {
  method: string;
  /** The OpenAPI path, `{name}` for a path parameter. */
  path: string;
  query: Record<string, Schema>;
  body: Schema | null;
  stream: boolean;
}

interface FuzzRequest {
  uri: string;
  body?: string;
  caller: 'superadmin' | 'user';
  relayed: boolean;
}

// ---- values -------------------------------------------------------------------------------------------------

const HOSTILE_UNITS = ['\u0000', '\n', '\r', '\t', '\u001b', '\u007f', '\u0085', '\u2028', '\ud800', '\udfff', '\u202e', '\ufeff', '\u200b', '/', '\\', '%', '.', '"', "'", '<', '{', 'a', 'é', '😀'];
const HOSTILE_TEXT = ['', ' ', '..', '../../etc/passwd', '..%2F..%2Fetc', '%2F', '%252F', 'a/b', 'a\\b', '%00', '%ff', '\u0000', "' OR 1=1 --", '__proto__', 'constructor', 'null', 'NaN', '-1', '1e309', '9'.repeat(40), '00000000-0000-0000-0000-000000000000', 'default', '*', 'frozen', 'running', '2024-13-45', '-0', '0x10'];
const HOSTILE_NUMBERS = [2 ** 31, 2 ** 31 - 1, -(2 ** 31), -(2 ** 31) - 1, 2 ** 53 + 2, 2 ** 63, 1e308, -1e308, -1, 0, 0.5, -0.5, 1e-320, 1e21, Number.MAX_SAFE_INTEGER];

/**
 * Names and ids of objects that exist (made in beforeAll), so that requests reach handlers past their lookups. Filled
 * before any request is drawn; a replay draws the same positions in it.
 */
const known: string[] = [];
const knownName = fc.nat().map((i) => known[i % known.length] ?? 'default');

const text: fc.Arbitrary<string> = fc.oneof(
  knownName,
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom(...HOSTILE_UNITS), maxLength: 40 }),
  fc.constantFrom(...HOSTILE_TEXT),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'x'.repeat(n)),
);
const number: fc.Arbitrary<number> = fc.oneof(fc.constantFrom(...HOSTILE_NUMBERS), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));

/** A deeply nested value, written out by toJson without recursion (JSON.stringify would run out of stack). */
class Deep {
  constructor(
    readonly depth: number,
    readonly asArray: boolean,
  ) {}
}
const deep = fc.tuple(fc.integer({ min: 20, max: 50_000 }), fc.boolean()).map(([depth, asArray]) => new Deep(depth, asArray));

/** JSON text of a generated value (Deep values nested `depth` times). */
function toJson(value: unknown): string {
  if (value instanceof Deep) {
    return value.asArray ? `${'['.repeat(value.depth)}"deep"${']'.repeat(value.depth)}` : `${'{"a":'.repeat(value.depth)}"deep"${'}'.repeat(value.depth)}`;
  }
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Percent-encodes UTF-8 bytes (an unpaired surrogate becomes U+FFFD; raw WTF-8 bytes are sent separately). */
function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const anything: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    number,
    fc.boolean(),
    fc.constant(null),
    deep,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text.map((s) => s.slice(0, 200)), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Values the schema allows, so a request gets past validation to the handler and the database now and then. */
function validValues(schema: Schema): unknown[] {
  if (Array.isArray(schema.enum)) return schema.enum;
  if (schema.const !== undefined) return [schema.const];
  if (schema.type === 'boolean') return [true, false];
  if (schema.type === 'integer' || schema.type === 'number') {
    const values = [schema.minimum ?? 0, schema.maximum ?? 1, (schema.minimum ?? 0) + 1].filter((n) => typeof n === 'number');
    return values.length ? values : [1];
  }
  if (schema.format === 'uuid') return ['00000000-0000-0000-0000-000000000001'];
  return [];
}

function valueFor(schema: Schema = {}): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [];
  const variants: Schema[] = schema.anyOf ?? schema.oneOf ?? [schema];
  for (const variant of variants) {
    const type = Array.isArray(variant.type) ? variant.type : [variant.type];
    if (type.includes('string')) options.push(text);
    if (type.includes('integer') || type.includes('number')) options.push(number);
    if (type.includes('boolean')) options.push(fc.oneof(fc.boolean(), fc.constantFrom('maybe', 'true', 1, 0)));
    if (type.includes('array')) options.push(fc.oneof(fc.array(valueFor(variant.items), { maxLength: 5 }), fc.array(text, { minLength: 200, maxLength: 2_000 })));
    if (type.includes('object')) options.push(variant.properties ? objectFor(variant) : fc.dictionary(text.map((s) => s.slice(0, 300)), anything, { maxKeys: 5 }));
    const valid = validValues(variant);
    if (valid.length) options.push(fc.constantFrom(...valid));
  }
  options.push(anything);
  return fc.oneof(...options);
}

/** An object with the schema's properties (the required ones usually present) and sometimes a few unknown ones. */
function objectFor(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const model = Object.fromEntries(Object.entries(properties).map(([name, prop]) => [name, valueFor(prop)]));
  const required = (schema.required ?? []).filter((name: string) => name in model);
  const known = fc.oneof({ weight: 4, arbitrary: fc.record(model, { requiredKeys: required }) }, { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) });
  const extra = fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.dictionary(text.map((s) => s.slice(0, 100)), anything, { maxKeys: 3 }) });
  return fc.tuple(known, extra).map(([k, e]) => ({ ...e, ...k }));
}

// ---- requests -----------------------------------------------------------------------------------------------

const RAW_SEGMENTS = ['%00', '%2F', '..', '%2e%2e', '%ff', '%', '%zz', 'a%2Fb', '%252F', '%C0%AE', '%E2%80%AE', '%ED%A0%80', '%0A', '%20', '_', '*'];
const pathSegment = fc.oneof(
  { weight: 3, arbitrary: text.map((s) => percentEncode(s.slice(0, 600))) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
  { weight: 2, arbitrary: knownName.map(percentEncode) },
);

/** A query value as clients send them: text as it is, anything else as JSON (CONTRACT §1.2 lists). */
function queryText(value: unknown): string {
  const textValue = typeof value === 'string' ? value : toJson(value);
  return textValue.slice(0, URL_TEXT_MAX);
}

function requestFor(op: Operation): fc.Arbitrary<FuzzRequest> {
  const names = [...op.path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1]);
  const params = fc.tuple(...names.map(() => pathSegment));
  const query = Object.keys(op.query).length ? objectFor({ properties: op.query, required: [] }) : fc.constant({});
  const rawQuery = fc.oneof({ weight: 6, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('&%', '&a=%zz', '&a=%ff%fe', '&a=%ED%A0%80', '&=', '&a&a&a', '&__proto__=x') });
  const body = op.body
    ? fc.oneof(
        { weight: 8, arbitrary: objectFor(op.body).map(toJson) },
        { weight: 1, arbitrary: fc.oneof(anything.map(toJson), fc.constantFrom('{"a":', '[', '"\\u0000"', '{"a":1,"a":2}', '{"__proto__":{"x":1}}', '{"a":"\\ud800"}')) },
      )
    : fc.constant(undefined);
  return fc
    .record({ params, query, rawQuery, body, caller: fc.constantFrom('superadmin' as const, 'user' as const), relayed: fc.boolean() })
    .map(({ params: segments, query: values, rawQuery: extra, body: sent, caller, relayed }) => {
      let i = 0;
      const path = op.path.replace(/\{[A-Za-z_]+\}/g, () => segments[i++]);
      const search = Object.entries(values)
        .map(([k, v]) => `${percentEncode(k)}=${percentEncode(queryText(v))}`)
        .join('&');
      const queryString = (search + extra).replace(/^&/, '');
      return { uri: queryString ? `${path}?${queryString}` : path, body: sent, caller, relayed };
    });
}

function operations(): Operation[] {
  const doc = buildOpenApi(allRoutes()) as { paths: Record<string, Record<string, any>> };
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const query: Record<string, Schema> = {};
      for (const p of op.parameters ?? []) if (p.in === 'query') query[p.name] = p.schema ?? {};
      const body = op.requestBody?.content?.['application/json']?.schema ?? (['get', 'head', 'delete'].includes(method) ? null : { type: 'object', properties: {} });
      const stream = Boolean(op.responses?.['200']?.content?.['text/event-stream']);
      out.push({ method: method.toUpperCase(), path, query, body, stream });
    }
  }
  return out;
}

// ---- the run ------------------------------------------------------------------------------------------------

let t: TestBerth;
let callers: Record<FuzzRequest['caller'], BerthClient>;
const tally = { requests: 0, serverErrors: 0, byStatus: new Map<number, number>() };

beforeAll(async () => {
  // With the app proxy, so starting an in-session app is not refused as "no proxy configured" (a 503).
  t = await startTestBerth({}, { roles: ['manager', 'apps'] });
  const superadmin = await t.createUser({ role: 'superadmin', rateLimit: null });
  const user = await t.createUser({ rateLimit: null });
  callers = { superadmin: superadmin.client, user: user.client };
  // Objects for the requests to find: a folder of each caller, a session template, an error log.
  for (const [name, client] of [['fuzz-admin-folder', superadmin.client], ['fuzz-user-folder', user.client]] as const) {
    const folder = await client.call('POST', '/folders', { body: { name } });
    known.push(name, folder.id);
  }
  const template = { api_version: 'v1', kind: 'taskTemplate', metadata: { name: 'fuzz' }, spec: { session_type: 'interactive', kernel: { image: 'python', architecture: 'x86_64' } } };
  const [stored] = await user.client.call('POST', '/template/session', { body: { group: 'default', domain: 'default', payload: JSON.stringify({ template }) } });
  await user.client.call('POST', '/logs/error', { body: { severity: 'error', source: 'fuzz', message: 'fuzz', context_lang: 'en', context_env: '{}' } });
  const [log] = (await user.client.call('GET', '/logs/error')).logs;
  const group = await t.app.db.selectFrom('groups').select('id').where('name', '=', 'default').executeTakeFirstOrThrow();
  known.push(stored.id, log.log_id, group.id, 'default', superadmin.email, user.email, 'python', 'x86_64', '.bashrc', 'a.txt', '/');
}, 120_000);

afterAll(async () => {
  const statuses = [...tally.byStatus].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ');
  console.log(`fuzz: ${tally.requests} requests, ${tally.serverErrors} answers 5xx, seed ${SEED} (statuses ${statuses})`);
  await t?.stop();
});

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

async function send(op: Operation, request: FuzzRequest): Promise<Answer> {
  const client = callers[request.caller];
  const headers = request.relayed ? { [RELAYED_HEADER]: '1' } : undefined;
  const rawBody = request.body === undefined ? undefined : request.body;
  if (op.stream) {
    // A stream that opens stays open: its status line and type are the answer.
    const res = await client.open(op.method, request.uri, { headers, rawBody });
    const contentType = String(res.headers['content-type'] ?? '');
    if (res.statusCode === 200 && contentType.startsWith('text/event-stream')) {
      res.destroy();
      return { status: 200, contentType, body: '' };
    }
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return { status: res.statusCode ?? 0, contentType, body: Buffer.concat(chunks).toString('utf8') };
  }
  const res = await client.request(op.method, request.uri, { headers, rawBody });
  return { status: res.status, contentType: String(res.headers['content-type'] ?? ''), body: res.text };
}

/** What is wrong with an answer, or null. */
function fault(op: Operation, answer: Answer): string | null {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.body.slice(0, 300)}`;
  if (answer.status >= 400) {
    if (!answer.contentType.startsWith('application/problem+json')) return `answered ${answer.status} as ${answer.contentType || 'no type'}`;
    if (op.method === 'HEAD') return null;
    try {
      const problem = JSON.parse(answer.body);
      if (typeof problem.type !== 'string' || typeof problem.title !== 'string') return `answered ${answer.status} without a problem's type and title`;
    } catch {
      return `answered ${answer.status} with a body that is not JSON`;
    }
  }
  return null;
}

const ops = operations();

describe(`fuzzing every operation (seed ${SEED}, ${RUNS} requests each)`, () => {
  it.each(ops.map((op, index) => [`${op.method} ${op.path}`, op, index] as const))('%s answers hostile input without a 5xx', async (label, op, index) => {
    const seed = SEED + index;
    const requests = fc.sample(requestFor(op), { seed, numRuns: RUNS });
    const faults: string[] = [];
    for (const [n, request] of requests.entries()) {
      if (t.app.manager.frozen) await callers.superadmin.call('PUT', '/manager/status', { body: { status: 'running' } });
      const answer = await send(op, request);
      tally.requests += 1;
      tally.byStatus.set(answer.status, (tally.byStatus.get(answer.status) ?? 0) + 1);
      if (answer.status >= 500) tally.serverErrors += 1;
      const wrong = fault(op, answer);
      if (wrong) {
        const shown = { ...request, body: request.body && request.body.length > 400 ? `${request.body.slice(0, 400)}… (${request.body.length} chars)` : request.body };
        faults.push(`#${n} ${wrong}\n    request: ${JSON.stringify(shown).slice(0, 1200)}`);
      }
    }
    expect(faults, `${label}: replay with BERTH_FUZZ_SEED=${SEED} (this operation's sample seed ${seed})`).toEqual([]);
  }, 120_000);
});
