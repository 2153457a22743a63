/** Operations: the audit log. */
import type { Timestamp, Defaulted } from './columns';

export interface AuditLogTable {
  id: Defaulted<number>;
  created_at: Timestamp;
  /** The caller's email; for a login (or another unsigned request), the email or username it tried. */
  actor_email: string | null;
  access_key: string | null;
  client_ip: Defaulted<string>;
  /** `METHOD /route/{pattern}`, or a GraphQL mutation's name. */
  action: string;
  /** The ids the request named, as a JSON object (`{"name":"demo"}`), or null. */
  target: string | null;
  /** The HTTP status as text ("200", "403"). */
  status: string;
  request_id: Defaulted<string>;
}
