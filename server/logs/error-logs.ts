/**
 * Client error logs (`/logs/error`, CONTRACT §14.4): clients report their errors here so admins can see what
 * users run into. Users see their own uncleared logs, domain admins every log of their domain, superadmins
 * all; `is_cleared` is only shown to admins, for whom clearing hides nothing.
 */
import { randomUUID } from 'node:crypto';
import type { App } from '../app';
import { isAdmin, isSuperadmin, type Principal } from '../auth/principal';
import { json } from '../db';
import { badRequest, forbidden, notFound } from '../http/problem';

export const SEVERITIES = ['critical', 'error', 'warning', 'info', 'debug'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface ErrorLogInput {
  severity: Severity;
  source: string;
  message: string;
  context_lang: string;
  /** Text holding JSON, as the spec types it; stored parsed. */
  context_env: string;
  request_url?: string | null;
  request_status?: number | null;
  traceback?: string | null;
}

export async function recordErrorLog(app: App, principal: Principal, input: ErrorLogInput): Promise<{ success: true }> {
  await app.db
    .insertInto('error_logs')
    .values({
      id: randomUUID(),
      created_at: recordTime(),
      severity: input.severity,
      source: input.source,
      user_id: principal.userId,
      domain_name: principal.domainName,
      message: input.message,
      context_lang: input.context_lang,
      context_env: json(parseContextEnv(input.context_env)),
      request_url: input.request_url ?? null,
      request_status: input.request_status ?? null,
      traceback: input.traceback ?? null,
    })
    .execute();
  return { success: true };
}

let lastMicros = 0;

/**
 * The record's time, made strictly increasing within this process by counting microseconds inside a millisecond:
 * logs are listed newest first, and two reports in the same millisecond must still list in the order they came.
 */
function recordTime(): string {
  const micros = Math.max(Date.now() * 1000, lastMicros + 1);
  lastMicros = micros;
  const iso = new Date(Math.floor(micros / 1000)).toISOString();
  return iso.replace(/Z$/, `${String(micros % 1000).padStart(3, '0')}Z`);
}

/** The JSON in `context_env`; a 400 when it is not JSON, or holds text a jsonb column refuses. */
function parseContextEnv(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('context_env: must be a string holding JSON', { context_env: 'must be a string holding JSON' });
  }
  if (!storableJson(value)) {
    throw badRequest('context_env: must not contain NUL characters or unpaired surrogates', { context_env: 'holds unstorable text' });
  }
  return value;
}

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** jsonb rejects \u0000 and unpaired surrogate escapes; walks the value without recursion (nesting is unbounded). */
function storableJson(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (UNSTORABLE.test(node)) return false;
    } else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (UNSTORABLE.test(k)) return false;
        stack.push(v);
      }
    }
  }
  return true;
}

export interface ListInput {
  mark_read: boolean;
  page_size: number;
  page_no: number;
}

/** The logs a caller sees: superadmins all, domain admins their domain's, users their own uncleared ones. */
function visibleLogs(app: App, principal: Principal) {
  const query = app.db.selectFrom('error_logs');
  if (isSuperadmin(principal)) return query;
  if (isAdmin(principal)) return query.where('domain_name', '=', principal.domainName);
  return query.where('user_id', '=', principal.userId).where('is_cleared', '=', false);
}

/**
 * A page of the logs the caller sees. `mark_read` (the old way to mark the page read) is honoured for signed API
 * clients only: through the dashboard's relay a GET must not change anything (a cross-site image could send it),
 * so there it is refused; POST /logs/error/mark-read marks logs read.
 */
export async function listErrorLogs(app: App, principal: Principal, input: ListInput, relayed = false) {
  if (input.mark_read && relayed) {
    throw forbidden('mark_read changes state and is not taken on a GET from the dashboard: POST /logs/error/mark-read {log_ids} instead.');
  }
  const admin = isAdmin(principal);
  const query = visibleLogs(app, principal);
  const [rows, total] = await Promise.all([
    query
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(input.page_size)
      .offset((input.page_no - 1) * input.page_size)
      .execute(),
    query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  const logs = rows.map((row) => ({
    log_id: row.id,
    created_at: new Date(row.created_at).getTime() / 1000,
    severity: row.severity,
    source: row.source,
    user: row.user_id,
    is_read: row.is_read,
    message: row.message,
    context_lang: row.context_lang,
    context_env: row.context_env,
    request_url: row.request_url,
    request_status: row.request_status,
    traceback: row.traceback,
    ...(admin ? { is_cleared: row.is_cleared } : {}),
  }));
  // The page answers with what the logs were when read; marking them read shows on the next read.
  if (input.mark_read && rows.length) await markRead(app, rows.map((row) => row.id));
  return { logs, count: Number(total.n) };
}

function markRead(app: App, ids: string[]) {
  return app.db.updateTable('error_logs').set({ is_read: true }).where('id', 'in', ids).executeTakeFirst();
}

/** Marks read those of `logIds` the caller sees (others are left alone, as if they did not exist). */
export async function markErrorLogsRead(app: App, principal: Principal, logIds: string[]): Promise<{ success: true; marked: number }> {
  const ids = (await visibleLogs(app, principal).select('id').where('id', 'in', logIds).execute()).map((row) => row.id);
  const result = ids.length ? await markRead(app, ids) : null;
  return { success: true, marked: Number(result?.numUpdatedRows ?? 0) };
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** The owner or an admin over the log may clear it; to anyone else it does not exist. */
export async function clearErrorLog(app: App, principal: Principal, logId: string): Promise<{ success: true }> {
  if (!UUID.test(logId)) throw notFound('No such error log.');
  let update = app.db.updateTable('error_logs').set({ is_cleared: true }).where('id', '=', logId);
  if (!isSuperadmin(principal)) {
    update = isAdmin(principal)
      ? update.where((eb) => eb.or([eb('domain_name', '=', principal.domainName), eb('user_id', '=', principal.userId)]))
      : update.where('user_id', '=', principal.userId);
  }
  const result = await update.executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw notFound('No such error log.');
  return { success: true };
}
