/**
 * Templates join the cached submission lookups (migration 0018, server/sessions/lookups.ts): create-from-template
 * and create-cluster read their templates on every submission, so a write to `session_templates` moves
 * `lookup_generation` too, in the same deferred constraint trigger. Additive only.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    drop trigger if exists session_templates_lookup_generation on session_templates;
    create constraint trigger session_templates_lookup_generation after insert or update or delete on session_templates
      deferrable initially deferred for each row execute function bump_lookup_generation();
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists session_templates_lookup_generation on session_templates`.execute(db);
}
