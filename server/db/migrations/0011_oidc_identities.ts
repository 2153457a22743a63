/**
 * Single sign-on: which provider account (issuer + subject, stable across email changes) is linked to which user.
 * A user has at most one account per issuer, so a second provider account claiming the same email cannot take
 * an existing user over.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table oidc_identities (
      issuer text not null,
      subject text not null,
      user_id uuid not null references users(uuid) on delete cascade,
      email text not null,
      created_at timestamptz not null default now(),
      last_login_at timestamptz not null default now(),
      primary key (issuer, subject),
      unique (issuer, user_id)
    );
  `.execute(db);
}
