/**
 * Kept queue orders (issue 18; server/sessions/scheduler/line-orders.ts): every committed change that can reorder
 * or change a scaling group's line moves one counter, `queue_generation.n`, in the same transaction, the way
 * `lookup_generation` moves for submission lookups (migration 0018, whose reasoning about the row lock holds here).
 * A line is the pending sessions that could start now, by priority, age and id; so the counter moves when a
 * session enters or leaves PENDING, when a pending session's priority, age, reserved time or scaling group
 * changes, when a session others depend on starts or stops counting as finished successfully, and when a
 * dependency is added or removed. A scheduling pass's periodic refresh of a verdict (status_info, status_data)
 * moves nothing. The line's order is also indexed with what the line's filter reads, so ordering it is an index
 * scan with no sort; that index replaces sessions_pending_queue (migration 0015), a prefix of it.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table if not exists queue_generation (id int primary key check (id = 1), n bigint not null);
    insert into queue_generation (id, n) values (1, 0) on conflict (id) do nothing;
    create or replace function queue_moved() returns void language plpgsql as $$
    begin
      -- Once per transaction: the rows after the first find the mark set.
      if current_setting('berth.queue_bumped', true) is distinct from txid_current()::text then
        perform set_config('berth.queue_bumped', txid_current()::text, true);
        update queue_generation set n = n + 1 where id = 1;
      end if;
    end $$;
    create or replace function bump_queue_generation() returns trigger language plpgsql as $$
    begin
      perform queue_moved();
      return null;
    end $$;
    -- A session whose success others wait for: only if some do.
    create or replace function bump_queue_generation_for_dependents() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from session_dependencies where depends_on = old.id) then
        perform queue_moved();
      end if;
      return null;
    end $$;

    drop trigger if exists sessions_queue_added on sessions;
    create constraint trigger sessions_queue_added after insert on sessions
      deferrable initially deferred for each row when (new.status = 'PENDING')
      execute function bump_queue_generation();
    drop trigger if exists sessions_queue_changed on sessions;
    create constraint trigger sessions_queue_changed after update on sessions
      deferrable initially deferred for each row
      when ((old.status = 'PENDING' or new.status = 'PENDING')
        and (old.status, old.priority, old.created_at, old.starts_at, old.scaling_group_name)
          is distinct from (new.status, new.priority, new.created_at, new.starts_at, new.scaling_group_name))
      execute function bump_queue_generation();
    drop trigger if exists sessions_queue_removed on sessions;
    create constraint trigger sessions_queue_removed after delete on sessions
      deferrable initially deferred for each row when (old.status = 'PENDING')
      execute function bump_queue_generation();
    drop trigger if exists sessions_queue_dependency_done on sessions;
    create constraint trigger sessions_queue_dependency_done after update on sessions
      deferrable initially deferred for each row
      when (coalesce(old.status = 'TERMINATED' and old.result = 'success', false)
        is distinct from coalesce(new.status = 'TERMINATED' and new.result = 'success', false))
      execute function bump_queue_generation_for_dependents();
    -- Deleting a session others depend on deletes their dependency rows too (on delete cascade): this trigger.
    drop trigger if exists session_dependencies_queue on session_dependencies;
    create constraint trigger session_dependencies_queue after insert or delete on session_dependencies
      deferrable initially deferred for each row execute function bump_queue_generation();

    create index if not exists sessions_pending_line on sessions(scaling_group_name, priority desc, created_at, id)
      include (starts_at) where status = 'PENDING';
    drop index if exists sessions_pending_queue;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create index if not exists sessions_pending_queue on sessions(scaling_group_name, priority desc, created_at) where status = 'PENDING';
    drop index if exists sessions_pending_line;
    drop trigger if exists session_dependencies_queue on session_dependencies;
    drop trigger if exists sessions_queue_dependency_done on sessions;
    drop trigger if exists sessions_queue_removed on sessions;
    drop trigger if exists sessions_queue_changed on sessions;
    drop trigger if exists sessions_queue_added on sessions;
    drop function if exists bump_queue_generation_for_dependents();
    drop function if exists bump_queue_generation();
    drop function if exists queue_moved();
    drop table if exists queue_generation;
  `.execute(db);
}
