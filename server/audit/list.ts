/**
 * Reading the audit log: superadmins only, Backend.AI's paginated-list shape, the filter and order language of the
 * other *_list queries (server/graphql/filter.ts), newest first unless asked otherwise. Records still buffered in
 * this process are written first, so a reader sees every request answered before it asked.
 */
import type { App } from '../app';
import { isSuperadmin, type Principal } from '../auth/principal';
import { Problem } from '../http/problem';
import { filterAndOrder, pageWindow, fieldsOf, type FieldMap, type ListArgs } from '../db/list-query';
import { auditOf } from './writer';

export const AUDIT_FIELDS: FieldMap = fieldsOf(null, {
  string: ['actor_email', 'access_key', 'action', 'target', 'status', 'request_id', 'client_ip'],
  datetime: ['created_at'],
});

export interface AuditItem {
  created_at: Date;
  actor_email: string | null;
  access_key: string | null;
  action: string;
  target: string | null;
  status: string;
  request_id: string;
  client_ip: string;
}

export async function listAuditLog(app: App, caller: Principal, args: ListArgs): Promise<{ total_count: number; items: AuditItem[] }> {
  if (!isSuperadmin(caller)) throw new Problem('insufficient-privilege', 'Reading the audit log needs superadmin privilege.');
  const { limit, offset } = pageWindow(args);
  // Parsed (and refused) before anything is written or read.
  const base = app.db.selectFrom('audit_log');
  const filtered = filterAndOrder(base, { filter: args.filter }, AUDIT_FIELDS);
  const ordered = filterAndOrder(base, { filter: args.filter, order: args.order?.trim() ? args.order : '-created_at' }, AUDIT_FIELDS);
  await auditOf(app).flush();
  const counted = await filtered.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const items = limit === 0 ? [] : await ordered.select(['created_at', 'actor_email', 'access_key', 'action', 'target', 'status', 'request_id', 'client_ip']).orderBy('id', 'desc').limit(limit).offset(offset).execute();
  return { total_count: Number(counted?.n ?? 0), items };
}

/** Deletes records older than the retention (BERTH_AUDIT_RETENTION_DAYS); answers how many went. */
export async function pruneAuditLog(app: App, now = Date.now()): Promise<number> {
  const before = new Date(now - app.settings.auditRetentionDays * 86_400_000);
  const result = await app.db.deleteFrom('audit_log').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
