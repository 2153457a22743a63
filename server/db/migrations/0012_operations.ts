/**
 * Operating Berth (issue 14): the audit log of state-changing requests, and each session's last activity, which
 * the idle culler keeps (server/culling/) so idleness survives a manager restart and is shared by replicas.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table audit_log (
      id bigserial primary key,
      created_at timestamptz not null default now(),
      actor_email text,
      access_key text,
      client_ip text not null default '',
      action text not null,
      target text,
      status text not null,
      request_id text not null default ''
    );
    create index audit_log_created_at on audit_log(created_at);
    alter table sessions add column last_activity timestamptz;
    -- /metrics counts kernels that have not ended at every scrape: O(live kernels), however long the history.
    create index kernels_live on kernels(status, agent_id) where status not in ('TERMINATED', 'CANCELLED');
  `.execute(db);
}
