/**
 * Single sign-on accounts: the Berth user behind a provider account whose ID token has been verified.
 *
 * - A provider account already linked (issuer + subject) is that user, whatever its email says today.
 * - Otherwise its email, which the provider must say is verified, links it to the user of that email, or creates
 *   one (role `user`, BERTH_OIDC_DOMAIN / BERTH_OIDC_PROJECT) through createUser with a password nobody knows.
 * - A user who is not active in Berth is refused, whatever the provider says.
 * - At every login the mapped groups govern what they name: the admin role (BERTH_OIDC_ADMIN_GROUP, between `user`
 *   and `admin` only; superadmins and monitors are left alone) and the projects of BERTH_OIDC_GROUP_PROJECTS.
 */
import { sql } from 'kysely';
import type { App } from '../app';
import type { OidcSettings } from '../config/env';
import type { User } from '../db/schema';
import { generatePassword } from '../auth/keys';
import { Problem } from '../http/problem';
import { createUser } from './create-user';
import { projectIdByName } from '../projects/values';

export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  /** The name to show (`name`, else `preferred_username`), possibly empty. */
  name: string;
  /** The values of the groups claim, without Keycloak's leading `/` of a full group path. */
  groups: string[];
}

const MAX_NAME = 64;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function identityFromClaims(claims: Record<string, unknown> & { iss: string; sub: string }, oidc: OidcSettings): OidcIdentity {
  const email = typeof claims.email === 'string' && EMAIL.test(claims.email.trim()) && claims.email.length <= 254 ? claims.email.trim() : null;
  const raw = claims[oidc.groupsClaim];
  const listed: unknown[] = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  const groups = listed.filter((g): g is string => typeof g === 'string').map((g) => g.trim().replace(/^\//, '')).filter(Boolean);
  const name = [claims.name, claims.preferred_username].find((v): v is string => typeof v === 'string' && v.trim() !== '');
  return {
    issuer: claims.iss,
    subject: claims.sub,
    email,
    // Some providers send the flag as a string.
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    name: (name ?? '').trim().slice(0, MAX_NAME),
    groups,
  };
}

const refused = (detail: string) => new Problem('auth-failed', detail);

function refuseUnlessActive(user: User): void {
  if (user.status === 'active') return;
  const why = user.status === 'deleted' ? 'was deleted' : user.status === 'before-verification' ? 'awaits email verification' : 'is inactive';
  throw refused(`Your Berth account (${user.email}) ${why}. Ask an administrator.`);
}

async function linkedUser(app: App, identity: OidcIdentity): Promise<User | undefined> {
  return app.db
    .selectFrom('oidc_identities as i')
    .innerJoin('users as u', 'u.uuid', 'i.user_id')
    .selectAll('u')
    .where('i.issuer', '=', identity.issuer)
    .where('i.subject', '=', identity.subject)
    .executeTakeFirst();
}

/** Links the provider account to `user`; refused when the user is linked to another account of the same issuer. */
async function link(app: App, oidc: OidcSettings, identity: OidcIdentity & { email: string }, user: User): Promise<void> {
  await app.db
    .insertInto('oidc_identities')
    .values({ issuer: identity.issuer, subject: identity.subject, user_id: user.uuid, email: identity.email })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const linked = await linkedUser(app, identity);
  if (linked?.uuid !== user.uuid) throw refused(`The Berth account of ${identity.email} is linked to another ${oidc.name} account.`);
}

async function createLinkedUser(app: App, oidc: OidcSettings, identity: OidcIdentity & { email: string }): Promise<User> {
  const projectId = await projectIdByName(app, oidc.domain, oidc.project);
  if (!projectId) {
    throw new Problem('server-misconfigured', `Single sign-on puts new users in project "${oidc.project}" of domain "${oidc.domain}", which does not exist (BERTH_OIDC_DOMAIN, BERTH_OIDC_PROJECT).`);
  }
  const admin = oidc.adminGroup !== undefined && identity.groups.includes(oidc.adminGroup);
  const created = await createUser(app.db, {
    email: identity.email,
    username: identity.email,
    // Never told to anyone: the user signs in through the provider (an administrator can set a password later).
    password: generatePassword(),
    domainName: oidc.domain,
    role: admin ? 'admin' : 'user',
    fullName: identity.name,
    groupIds: [projectId],
  });
  const user = await app.db.selectFrom('users').selectAll().where('uuid', '=', created.uuid).executeTakeFirstOrThrow();
  await link(app, oidc, identity, user);
  app.log.info({ user: user.email, issuer: identity.issuer }, 'single sign-on created a user');
  return user;
}

/** The linked, linkable or new user; refusals as auth-failed problems. */
async function findOrCreate(app: App, oidc: OidcSettings, identity: OidcIdentity & { email: string }): Promise<User> {
  const linked = await linkedUser(app, identity);
  if (linked) return linked;
  const byEmail = await app.db
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(email)`, '=', identity.email.toLowerCase())
    .executeTakeFirst();
  if (byEmail) {
    refuseUnlessActive(byEmail);
    await link(app, oidc, identity, byEmail);
    return byEmail;
  }
  return createLinkedUser(app, oidc, identity);
}

/** Applies the group mappings (admin role, governed projects) and returns the user as it now is. */
async function applyGroupMappings(app: App, oidc: OidcSettings, identity: OidcIdentity & { email: string }, user: User): Promise<User> {
  const wantedRole =
    oidc.adminGroup !== undefined && (user.role === 'user' || user.role === 'admin')
      ? identity.groups.includes(oidc.adminGroup) ? 'admin' : 'user'
      : user.role;
  // Project name → whether one of the groups mapped to it is the user's.
  const governed = new Map<string, boolean>();
  for (const [group, projects] of Object.entries(oidc.groupProjects)) {
    for (const project of projects) governed.set(project, (governed.get(project) ?? false) || identity.groups.includes(group));
  }
  await app.db.transaction().execute(async (trx) => {
    if (wantedRole !== user.role) {
      await trx.updateTable('users').set({ role: wantedRole, modified_at: new Date() }).where('uuid', '=', user.uuid).execute();
      await trx.updateTable('keypairs').set({ is_admin: wantedRole === 'admin', modified_at: new Date() }).where('user_id', '=', user.uuid).execute();
    }
    if (governed.size) {
      const projects = await trx.selectFrom('groups').select(['id', 'name']).where('domain_name', '=', user.domain_name).where('name', 'in', [...governed.keys()]).execute();
      const join = projects.filter((p) => governed.get(p.name)).map((p) => ({ group_id: p.id, user_id: user.uuid }));
      const leave = projects.filter((p) => !governed.get(p.name)).map((p) => p.id);
      if (join.length) await trx.insertInto('association_groups_users').values(join).onConflict((oc) => oc.doNothing()).execute();
      if (leave.length) await trx.deleteFrom('association_groups_users').where('user_id', '=', user.uuid).where('group_id', 'in', leave).execute();
      const missing = [...governed.keys()].filter((name) => !projects.some((p) => p.name === name));
      if (missing.length) app.log.warn({ projects: missing, domain: user.domain_name }, 'BERTH_OIDC_GROUP_PROJECTS names projects that do not exist');
    }
    await trx
      .updateTable('oidc_identities')
      .set({ last_login_at: new Date(), email: identity.email })
      .where('issuer', '=', identity.issuer)
      .where('subject', '=', identity.subject)
      .execute();
  });
  if (wantedRole !== user.role) {
    app.keypairs.invalidate();
    app.log.info({ user: user.email, role: wantedRole }, 'single sign-on changed a role (BERTH_OIDC_ADMIN_GROUP)');
  }
  return { ...user, role: wantedRole };
}

/** The active Berth user for a verified provider identity, created or linked on first login. */
export async function provisionOidcUser(app: App, oidc: OidcSettings, identity: OidcIdentity): Promise<User> {
  const { email } = identity;
  if (!email) throw refused(`${oidc.name} did not share your email address, which Berth needs (the "email" scope, BERTH_OIDC_SCOPES).`);
  if (!identity.emailVerified) throw refused(`Your email address ${email} is not verified at ${oidc.name}. Verify it there, then sign in again.`);
  const withEmail = { ...identity, email };
  let user: User;
  try {
    user = await findOrCreate(app, oidc, withEmail);
  } catch (err) {
    // Two first logins of the same person at once: the one that lost the race finds the user the other created.
    if (!(err instanceof Problem) || err.slug !== 'generic-bad-request') throw err;
    user = await findOrCreate(app, oidc, withEmail);
  }
  refuseUnlessActive(user);
  return applyGroupMappings(app, oidc, withEmail, user);
}
