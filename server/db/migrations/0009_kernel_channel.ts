/**
 * The kernel channel (docs/architecture.md, "Backends and the kernel channel"): how any manager process reaches a
 * kernel's runner (a Unix socket here, or TLS on another node with the kernel's secret), and the address an app
 * route forwards to (a kernel's node, not always this machine).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table kernels add column channel jsonb`.execute(db);
  // Exactly one launch per session, whichever manager process or trigger gets there first.
  await sql`alter table sessions add column launch_claimed_at timestamptz`.execute(db);
  await sql`alter table app_routes add column host text not null default '127.0.0.1'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table app_routes drop column host`.execute(db);
  await sql`alter table sessions drop column launch_claimed_at`.execute(db);
  await sql`alter table kernels drop column channel`.execute(db);
}
