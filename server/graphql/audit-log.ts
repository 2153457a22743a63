/** `audit_log_list` (issue 14): the audit log for superadmins; anyone else gets a permission error. */
import { listAuditLog } from '../audit/list';
import type { ListArgs } from '../db/list-query';
import type { ResolverMap } from './context';

export const auditLogTypeDefs = /* GraphQL */ `
  "A state-changing request (or GraphQL mutation, login, failed login) as the audit log recorded it."
  type AuditLog {
    created_at: DateTime
    "The caller's email; for a login, the email or username it tried; null when unknown."
    actor_email: String
    access_key: String
    "The method and route pattern (POST /folders), or the GraphQL mutation's name."
    action: String
    "The ids the request named, as a JSON object, or null."
    target: String
    "The HTTP status as text, e.g. 200 or 403."
    status: String
    request_id: String
    client_ip: String
  }

  type AuditLogList {
    items: [AuditLog]!
    total_count: Int!
  }

  extend type Query {
    "Superadmins only. filter and order as the other *_list queries (fields: created_at, actor_email, access_key, action, target, status, request_id, client_ip); newest first by default."
    audit_log_list(limit: Int!, offset: Int!, filter: String, order: String): AuditLogList
  }
`;

export const auditLogResolvers: ResolverMap = {
  Query: {
    audit_log_list: (_root, args: ListArgs, ctx) => listAuditLog(ctx.app, ctx.principal, args),
  },
};
