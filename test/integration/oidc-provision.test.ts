/**
 * Single sign-on accounts (server/accounts/oidc-provision.ts) on a real database: the first login of a verified
 * email creates or links the user, the link survives an email change at the provider, refused accounts stay
 * untouched, and the group mappings govern the admin role and the mapped projects at every login.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBerth, type TestBerth } from '../helpers/berth';
import { readOidcSettings, type OidcSettings } from '../../server/config/env';
import { provisionOidcUser, identityFromClaims, type OidcIdentity } from '../../server/accounts/oidc-provision';
import { verifyPassword } from '../../server/auth/passwords';
import { json } from '../../server/db';
import { Problem } from '../../server/http/problem';

const ISSUER = 'https://id.example.com/realms/berth';

let t: TestBerth;
let oidc: OidcSettings;

const settings = (extra: Record<string, string> = {}) =>
  readOidcSettings({
    BERTH_OIDC_ISSUER: ISSUER,
    BERTH_OIDC_CLIENT_ID: 'berth',
    BERTH_OIDC_CLIENT_SECRET: 'secret',
    BERTH_OIDC_NAME: 'Acme ID',
    BERTH_OIDC_ADMIN_GROUP: 'berth-admins',
    BERTH_OIDC_GROUP_PROJECTS: 'ml-team=ml, vision=cv, gone=no-such-project',
    ...extra,
  })!;

let seq = 0;
function identity(overrides: Partial<OidcIdentity> = {}): OidcIdentity {
  seq += 1;
  return { issuer: ISSUER, subject: `sub-${seq}-${randomUUID()}`, email: `person${seq}@example.com`, emailVerified: true, name: `Person ${seq}`, groups: [], ...overrides };
}

async function createProject(name: string, domain = 'default'): Promise<string> {
  const id = randomUUID();
  await t.app.db
    .insertInto('groups')
    .values({ id, name, domain_name: domain, total_resource_slots: json({}), allowed_vfolder_hosts: json({}), dotfiles: json([]) })
    .execute();
  return id;
}

const userByEmail = (email: string) => t.app.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
const projectsOf = async (uuid: string) =>
  (
    await t.app.db
      .selectFrom('association_groups_users as a')
      .innerJoin('groups as g', 'g.id', 'a.group_id')
      .select('g.name')
      .where('a.user_id', '=', uuid)
      .orderBy('g.name')
      .execute()
  ).map((r) => r.name);
const identitiesOf = (uuid: string) => t.app.db.selectFrom('oidc_identities').selectAll().where('user_id', '=', uuid).execute();
const keypairsOf = (uuid: string) => t.app.db.selectFrom('keypairs').select(['access_key', 'is_admin']).where('user_id', '=', uuid).execute();

/** The refusal `provisionOidcUser` throws, as a Problem. */
async function refusal(promise: Promise<unknown>): Promise<Problem> {
  const error = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(Problem);
  return error as Problem;
}

beforeAll(async () => {
  t = await startTestBerth();
  oidc = settings();
  await createProject('ml');
  await createProject('cv');
});
afterAll(() => t?.stop());

describe('claims → identity', () => {
  it('reads email, the verified flag (boolean or string), the name and the groups without a leading slash', () => {
    const read = identityFromClaims(
      { iss: ISSUER, sub: 's1', email: ' Ada@Example.com ', email_verified: 'true', preferred_username: 'ada', groups: ['/berth-admins', 'ml-team', 7, ''] },
      oidc,
    );
    expect(read).toEqual({ issuer: ISSUER, subject: 's1', email: 'Ada@Example.com', emailVerified: true, name: 'ada', groups: ['berth-admins', 'ml-team'] });
  });

  it('takes no email that is not one, and no verified flag but true', () => {
    expect(identityFromClaims({ iss: ISSUER, sub: 's', email: 'not an email', email_verified: true }, oidc).email).toBeNull();
    expect(identityFromClaims({ iss: ISSUER, sub: 's', email: 'a@b.c', email_verified: 'yes' }, oidc).emailVerified).toBe(false);
    expect(identityFromClaims({ iss: ISSUER, sub: 's', email: 'a@b.c', email_verified: 1 }, oidc).emailVerified).toBe(false);
  });

  it('reads the groups from the configured claim, a single string included', () => {
    const custom = settings({ BERTH_OIDC_GROUPS_CLAIM: 'roles' });
    expect(identityFromClaims({ iss: ISSUER, sub: 's', roles: 'berth-admins', groups: ['x'] }, custom).groups).toEqual(['berth-admins']);
  });
});

describe('first login', () => {
  it('creates an active user of role user in the default domain and project, with a keypair and the link', async () => {
    const who = identity({ name: 'Grace Hopper' });
    const user = await provisionOidcUser(t.app, oidc, who);
    expect(user).toMatchObject({ email: who.email, username: who.email, role: 'user', status: 'active', domain_name: 'default', full_name: 'Grace Hopper' });
    expect(await projectsOf(user.uuid)).toEqual(['default']);
    const keypairs = await keypairsOf(user.uuid);
    expect(keypairs).toHaveLength(1);
    expect(keypairs[0].is_admin).toBe(false);
    expect(user.main_access_key).toBe(keypairs[0].access_key);
    const links = await identitiesOf(user.uuid);
    expect(links).toMatchObject([{ issuer: ISSUER, subject: who.subject, email: who.email }]);
    // A password exists (the column requires one) but is nobody's: neither empty nor the email.
    expect(await verifyPassword('', user.password)).toBe(false);
    expect(await verifyPassword(who.email!, user.password)).toBe(false);
  });

  it('puts new users where BERTH_OIDC_DOMAIN and BERTH_OIDC_PROJECT say', async () => {
    await t.createDomain('research');
    await createProject('lab', 'research');
    const user = await provisionOidcUser(t.app, settings({ BERTH_OIDC_DOMAIN: 'research', BERTH_OIDC_PROJECT: 'lab' }), identity());
    expect(user.domain_name).toBe('research');
    expect(await projectsOf(user.uuid)).toEqual(['lab']);
  });

  it('refuses to create users in a project that does not exist, creating nothing', async () => {
    const who = identity();
    const problem = await refusal(provisionOidcUser(t.app, settings({ BERTH_OIDC_PROJECT: 'nowhere' }), who));
    expect(problem.slug).toBe('server-misconfigured');
    expect(problem.message).toContain('"nowhere"');
    expect(await userByEmail(who.email!)).toBeUndefined();
  });

  it('links the existing user of that email (case aside) and keeps their role, projects and keypair', async () => {
    const existing = await t.createUser();
    const who = identity({ email: existing.email.toUpperCase() });
    const user = await provisionOidcUser(t.app, oidc, who);
    expect(user.uuid).toBe(existing.uuid);
    expect(user.email).toBe(existing.email);
    expect((await keypairsOf(existing.uuid)).map((k) => k.access_key)).toEqual([existing.accessKey]);
    expect(await identitiesOf(existing.uuid)).toHaveLength(1);
    // Their password still works for the CLI and the password form.
    const login = await t.anonymous.request('POST', '/auth/authorize', { body: { type: 'keypair', domain: 'default', username: existing.email, password: existing.password } });
    expect(login.status).toBe(200);
  });
});

describe('later logins', () => {
  it('find the linked user by issuer and subject even after the email changed at the provider', async () => {
    const who = identity();
    const first = await provisionOidcUser(t.app, oidc, who);
    const again = await provisionOidcUser(t.app, oidc, { ...who, email: 'renamed@example.com' });
    expect(again.uuid).toBe(first.uuid);
    expect(again.email).toBe(who.email);
    expect((await identitiesOf(first.uuid))[0].email).toBe('renamed@example.com');
    expect(await userByEmail('renamed@example.com')).toBeUndefined();
  });

  it('refuse a second provider account claiming the email of a user already linked', async () => {
    const who = identity();
    const user = await provisionOidcUser(t.app, oidc, who);
    const impostor = identity({ email: who.email });
    const problem = await refusal(provisionOidcUser(t.app, oidc, impostor));
    expect(problem.slug).toBe('auth-failed');
    expect(problem.message).toContain('linked to another Acme ID account');
    expect((await identitiesOf(user.uuid)).map((i) => i.subject)).toEqual([who.subject]);
  });

  it('link the same person to each issuer separately', async () => {
    const who = identity();
    const user = await provisionOidcUser(t.app, oidc, who);
    const elsewhere = await provisionOidcUser(t.app, oidc, { ...who, issuer: 'https://other.example.com' });
    expect(elsewhere.uuid).toBe(user.uuid);
    expect(await identitiesOf(user.uuid)).toHaveLength(2);
  });
});

describe('refusals', () => {
  it('refuses an unverified email and creates nothing', async () => {
    const who = identity({ emailVerified: false });
    const problem = await refusal(provisionOidcUser(t.app, oidc, who));
    expect(problem.slug).toBe('auth-failed');
    expect(problem.message).toContain('is not verified at Acme ID');
    expect(await userByEmail(who.email!)).toBeUndefined();
  });

  it('refuses an unverified email even for a linked user', async () => {
    const who = identity();
    await provisionOidcUser(t.app, oidc, who);
    expect((await refusal(provisionOidcUser(t.app, oidc, { ...who, emailVerified: false }))).slug).toBe('auth-failed');
  });

  it('refuses a provider account without an email', async () => {
    const problem = await refusal(provisionOidcUser(t.app, oidc, identity({ email: null })));
    expect(problem.message).toContain('did not share your email address');
  });

  it.each([
    ['inactive', 'is inactive'],
    ['deleted', 'was deleted'],
    ['before-verification', 'awaits email verification'],
  ])('refuses the %s user of that email without linking them', async (status, words) => {
    const existing = await t.createUser();
    await t.app.db.updateTable('users').set({ status }).where('uuid', '=', existing.uuid).execute();
    const problem = await refusal(provisionOidcUser(t.app, oidc, identity({ email: existing.email })));
    expect(problem.slug).toBe('auth-failed');
    expect(problem.message).toContain(words);
    expect(await identitiesOf(existing.uuid)).toEqual([]);
  });

  it('refuses a linked user deactivated in Berth since, even though the provider says yes', async () => {
    const who = identity({ groups: ['berth-admins'] });
    const user = await provisionOidcUser(t.app, oidc, who);
    await t.app.db.updateTable('users').set({ status: 'inactive' }).where('uuid', '=', user.uuid).execute();
    const problem = await refusal(provisionOidcUser(t.app, oidc, { ...who, groups: [] }));
    expect(problem.message).toContain('is inactive');
    // Nothing was synchronised for a refused login.
    expect((await userByEmail(who.email!))!.role).toBe('admin');
  });
});

describe('group mappings', () => {
  it('makes a member of the admin group an admin, with admin keypairs, and takes it back when they leave', async () => {
    const who = identity({ groups: ['berth-admins'] });
    const user = await provisionOidcUser(t.app, oidc, who);
    expect(user.role).toBe('admin');
    expect((await keypairsOf(user.uuid)).every((k) => k.is_admin)).toBe(true);
    const principal = await t.app.keypairs.get(user.main_access_key!);
    expect(principal?.isAdmin).toBe(true);

    const left = await provisionOidcUser(t.app, oidc, { ...who, groups: [] });
    expect(left.role).toBe('user');
    expect((await userByEmail(who.email!))!.role).toBe('user');
    expect((await keypairsOf(user.uuid)).some((k) => k.is_admin)).toBe(false);
    // The keypair cache forgot the old answer: the next signed request is a plain user's.
    expect((await t.app.keypairs.get(user.main_access_key!))?.isAdmin).toBe(false);

    const back = await provisionOidcUser(t.app, oidc, { ...who, groups: ['berth-admins'] });
    expect(back.role).toBe('admin');
  });

  it('leaves a superadmin (the first admin linking by email) a superadmin', async () => {
    const admin = await provisionOidcUser(t.app, oidc, identity({ email: t.adminCreds.email, groups: [] }));
    expect(admin.role).toBe('superadmin');
    expect((await userByEmail(t.adminCreds.email))!.role).toBe('superadmin');
  });

  it('leaves roles alone when no admin group is configured', async () => {
    const plain = settings({ BERTH_OIDC_ADMIN_GROUP: '' });
    expect(plain.adminGroup).toBeUndefined();
    const user = await provisionOidcUser(t.app, plain, identity({ groups: ['berth-admins'] }));
    expect(user.role).toBe('user');
  });

  it('joins and leaves the mapped projects with the groups, leaving other memberships alone', async () => {
    const who = identity({ groups: ['ml-team', 'vision', 'unrelated'] });
    const user = await provisionOidcUser(t.app, oidc, who);
    expect(await projectsOf(user.uuid)).toEqual(['cv', 'default', 'ml']);
    await provisionOidcUser(t.app, oidc, { ...who, groups: ['vision'] });
    expect(await projectsOf(user.uuid)).toEqual(['cv', 'default']);
    await provisionOidcUser(t.app, oidc, { ...who, groups: [] });
    expect(await projectsOf(user.uuid)).toEqual(['default']);
  });

  it('applies the mappings to a linked existing user too', async () => {
    const existing = await t.createUser();
    await provisionOidcUser(t.app, oidc, identity({ email: existing.email, groups: ['ml-team'] }));
    expect(await projectsOf(existing.uuid)).toEqual(['default', 'ml']);
  });
});
