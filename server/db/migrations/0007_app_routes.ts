/** In-session apps published through the app proxy: routes (app → host port) and their single-use tokens. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table app_routes (
      id text primary key,
      session_id uuid not null references sessions(id) on delete cascade,
      kernel_id uuid not null references kernels(id) on delete cascade,
      app text not null,
      protocol text not null default 'http',
      host_port integer not null unique,
      user_uuid uuid not null references users(uuid) on delete cascade,
      created_at timestamptz not null default now(),
      unique (session_id, app)
    );
    create table app_tokens (
      token_hash text primary key,
      route_id text not null references app_routes(id) on delete cascade,
      session_id uuid not null,
      user_uuid uuid not null,
      expires_at timestamptz not null,
      used_at timestamptz
    );
  `.execute(db);
}
