/**
 * Cached submission lookups (issue 21; docs/architecture.md "The queue"): every write to a table a submission
 * looks up (images and their aliases, projects and their members, scaling groups and who may use them, keypair
 * resource policies, the agents' slot types) moves one counter, `lookup_generation.n`, in the same transaction.
 * A manager reads the counter (one row, one query) and reuses what it looked up while the counter stands still, so
 * a committed change is seen by the next submission on every replica, whatever code path made it.
 *
 * The counter moves in a deferred constraint trigger, at commit, once per transaction: its row lock is the last
 * one a writer takes and is held only for the commit, so writers of different tables never deadlock over it.
 * Agents move it only when what a submission reads of them changes (status, slot types, scaling group), not on
 * every heartbeat or allocation. Additive only, as every migration must be.
 */
import { sql, type Kysely } from 'kysely';

const TABLES = ['images', 'image_aliases', 'groups', 'association_groups_users', 'scaling_groups', 'sgroups_for_domains', 'sgroups_for_groups', 'keypair_resource_policies'];

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table if not exists lookup_generation (id int primary key check (id = 1), n bigint not null);
    insert into lookup_generation (id, n) values (1, 0) on conflict (id) do nothing;
    create or replace function bump_lookup_generation() returns trigger language plpgsql as $$
    begin
      -- Once per transaction: the rows after the first find the mark set.
      if current_setting('berth.lookup_bumped', true) is distinct from txid_current()::text then
        perform set_config('berth.lookup_bumped', txid_current()::text, true);
        update lookup_generation set n = n + 1 where id = 1;
      end if;
      return null;
    end $$;
  `.execute(db);
  for (const table of TABLES) {
    await sql`
      drop trigger if exists ${sql.raw(`${table}_lookup_generation`)} on ${sql.table(table)};
      create constraint trigger ${sql.raw(`${table}_lookup_generation`)} after insert or update or delete on ${sql.table(table)}
        deferrable initially deferred for each row execute function bump_lookup_generation();
    `.execute(db);
  }
  await sql`
    drop trigger if exists agents_added_lookup_generation on agents;
    create constraint trigger agents_added_lookup_generation after insert or delete on agents
      deferrable initially deferred for each row execute function bump_lookup_generation();
    drop trigger if exists agents_changed_lookup_generation on agents;
    create constraint trigger agents_changed_lookup_generation after update on agents
      deferrable initially deferred for each row
      when (old.status is distinct from new.status or old.available_slots is distinct from new.available_slots or old.scaling_group is distinct from new.scaling_group)
      execute function bump_lookup_generation();
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [...TABLES, 'agents']) {
    await sql`drop trigger if exists ${sql.raw(`${table}_lookup_generation`)} on ${sql.table(table)}`.execute(db);
  }
  await sql`
    drop trigger if exists agents_added_lookup_generation on agents;
    drop trigger if exists agents_changed_lookup_generation on agents;
    drop function if exists bump_lookup_generation();
    drop table if exists lookup_generation;
  `.execute(db);
}
