/** Accounts through /auth*: login, signup, signout, passwords, full name, SSH keypair, roles. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sshpk from 'sshpk';
import { ADMIN_PASSWORD, startTestBerth, type TestBerth } from '../helpers/berth';
import { BerthClient } from '../../server/client/client';
import { MAX_PASSWORD_AGE_KEY } from '../../server/accounts/password-expiry';

let t: TestBerth;
beforeAll(async () => {
  t = await startTestBerth({ allowSignup: true });
});
afterAll(() => t?.stop());

const authorize = (body: Record<string, unknown>) => t.anonymous.request('POST', '/auth/authorize', { body });

describe('POST /auth/authorize', () => {
  it('logs the bootstrap superadmin in by email and returns its keypair', async () => {
    const res = await authorize({ type: 'keypair', domain: 'default', username: t.adminCreds.email, password: ADMIN_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ data: { access_key: t.adminCreds.accessKey, secret_key: t.adminCreds.secretKey, role: 'superadmin', status: 'active' } });
  });

  it('accepts the username as well as the email', async () => {
    const res = await authorize({ type: 'keypair', domain: 'default', username: 'admin', password: ADMIN_PASSWORD });
    expect(res.json().data.access_key).toBe(t.adminCreds.accessKey);
  });

  it('refuses a wrong password with 401 "User credential mismatch."', async () => {
    const res = await authorize({ type: 'keypair', domain: 'default', username: 'admin', password: 'nope-nope' });
    expect(res.status).toBe(401);
    expect(res.json()).toMatchObject({ type: 'https://errors.berth.dev/auth-failed', detail: 'User credential mismatch.' });
  });

  it('refuses an unknown user the same way (no account enumeration)', async () => {
    const res = await authorize({ type: 'keypair', domain: 'default', username: 'ghost@example.com', password: 'whatever1' });
    expect(res.status).toBe(401);
    expect(res.json().detail).toBe('User credential mismatch.');
  });

  it('answers type jwt with 400 invalid-api-params', async () => {
    const res = await authorize({ type: 'jwt', domain: 'default', username: 'admin', password: ADMIN_PASSWORD });
    expect(res.status).toBe(400);
    expect(res.json().type).toContain('invalid-api-params');
  });

  it('rejects an unknown type and missing fields with 400', async () => {
    expect((await authorize({ type: 'oauth', domain: 'default', username: 'admin', password: 'x' })).status).toBe(400);
    expect((await authorize({ type: 'keypair', domain: 'default' })).status).toBe(400);
  });

  it('refuses a user awaiting verification with its own message', async () => {
    const user = await t.createUser();
    await t.app.db.updateTable('users').set({ status: 'before-verification' }).where('uuid', '=', user.uuid).execute();
    const res = await authorize({ type: 'keypair', domain: 'default', username: user.email, password: user.password });
    expect(res.status).toBe(401);
    expect(res.json().detail).toBe('This account needs email verification.');
  });

  it('refuses an inactive user', async () => {
    const user = await t.createUser();
    await t.app.db.updateTable('users').set({ status: 'inactive' }).where('uuid', '=', user.uuid).execute();
    expect((await authorize({ type: 'keypair', domain: 'default', username: user.email, password: user.password })).status).toBe(401);
  });
});

describe('password expiry', () => {
  it('refuses login with 401 password-expired and data, and update-password-no-auth renews it', async () => {
    const user = await t.createUser();
    const old = new Date(Date.now() - 10 * 86400_000);
    await t.app.db.updateTable('users').set({ password_changed_at: old }).where('uuid', '=', user.uuid).execute();
    await t.app.config.set(MAX_PASSWORD_AGE_KEY, '7d');
    try {
      const res = await authorize({ type: 'keypair', domain: 'default', username: user.email, password: user.password });
      expect(res.status).toBe(401);
      const body = res.json();
      expect(body.type).toContain('password-expired');
      expect(body.detail).toMatch(/^Password expired on /);
      expect(body.data).toEqual({ password_changed_at: old.toISOString(), max_password_age_seconds: 7 * 86400 });

      const same = await t.anonymous.request('POST', '/auth/update-password-no-auth', {
        body: { domain: 'default', username: user.email, current_password: user.password, new_password: user.password },
      });
      expect(same.status).toBe(400);
      const wrong = await t.anonymous.request('POST', '/auth/update-password-no-auth', {
        body: { domain: 'default', username: user.email, current_password: 'not-it-at-all', new_password: 'fresh-password-1' },
      });
      expect(wrong.status).toBe(401);
      const renewed = await t.anonymous.request('POST', '/auth/update-password-no-auth', {
        body: { domain: 'default', username: user.email, current_password: user.password, new_password: 'fresh-password-1' },
      });
      expect(renewed.status).toBe(200);
      expect(Date.parse(renewed.json().password_changed_at)).toBeGreaterThan(Date.now() - 60_000);
      const login = await authorize({ type: 'keypair', domain: 'default', username: user.email, password: 'fresh-password-1' });
      expect(login.status).toBe(200);
    } finally {
      await t.app.config.delete(MAX_PASSWORD_AGE_KEY);
    }
  });

  it('update-password-no-auth is unsupported without expiry configured', async () => {
    const res = await t.anonymous.request('POST', '/auth/update-password-no-auth', {
      body: { domain: 'default', username: 'admin', current_password: ADMIN_PASSWORD, new_password: 'another-pass-1' },
    });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ type: 'https://errors.berth.dev/generic-bad-request', detail: 'Unsupported function.' });
  });
});

describe('signup and signout', () => {
  it('signs up an active user of project default with rate limit 1000', async () => {
    const res = await t.anonymous.request('POST', '/auth/signup', { body: { domain: 'default', email: 'new@example.com', password: 'signup-pass-1' } });
    expect(res.status).toBe(200);
    const { access_key, secret_key } = res.json();
    expect(access_key).toMatch(/^AK[A-Z0-9]{18}$/);
    expect(secret_key).toMatch(/^[A-Za-z0-9]{40}$/);
    const client = new BerthClient({ endpoint: t.url, accessKey: access_key, secretKey: secret_key });
    const probe = await client.request('GET', '/auth/role');
    expect(probe.headers['x-ratelimit-limit']).toBe('1000');
    const group = await t.app.db.selectFrom('groups').select('id').where('name', '=', 'default').executeTakeFirstOrThrow();
    expect(await client.call('GET', '/auth/role', { query: { group: group.id } })).toEqual({ global_role: 'user', domain_role: 'user', group_role: 'user' });
  });

  it('refuses a duplicate email with 400 generic-bad-request', async () => {
    const res = await t.anonymous.request('POST', '/auth/signup', { body: { domain: 'default', email: t.adminCreds.email, password: 'signup-pass-1' } });
    expect(res.status).toBe(400);
    expect(res.json().type).toContain('generic-bad-request');
  });

  it('refuses a malformed email and a short password', async () => {
    expect((await t.anonymous.request('POST', '/auth/signup', { body: { domain: 'default', email: 'not-an-email', password: 'signup-pass-1' } })).status).toBe(400);
    expect((await t.anonymous.request('POST', '/auth/signup', { body: { domain: 'default', email: 'short@example.com', password: 'x' } })).status).toBe(400);
  });

  it('signout deactivates the user and every keypair', async () => {
    const user = await t.createUser();
    expect((await user.client.request('POST', '/auth/signout', { body: { email: user.email, password: 'wrong-one' } })).status).toBe(401);
    expect(await user.client.call('POST', '/auth/signout', { body: { email: user.email, password: user.password } })).toEqual({});
    const after = await user.client.request('GET', '/v2');
    expect(after.status).toBe(401);
    expect((await authorize({ type: 'keypair', domain: 'default', username: user.email, password: user.password })).status).toBe(401);
  });
});

describe('signup disabled', () => {
  it('answers 403 when BERTH_ALLOW_SIGNUP is off', async () => {
    const closed = await startTestBerth();
    try {
      const res = await closed.anonymous.request('POST', '/auth/signup', { body: { domain: 'default', email: 'x@example.com', password: 'signup-pass-1' } });
      expect(res.status).toBe(403);
    } finally {
      await closed.stop();
    }
  });
});

describe('password and name changes', () => {
  it('update-password checks the old password and the repeat, then takes effect', async () => {
    const user = await t.createUser();
    const wrongOld = await user.client.request('POST', '/auth/update-password', { body: { old_password: 'wrong', new_password: 'brand-new-1', new_password2: 'brand-new-1' } });
    expect(wrongOld.status).toBe(401);
    const mismatch = await user.client.request('POST', '/auth/update-password', { body: { old_password: user.password, new_password: 'brand-new-1', new_password2: 'brand-new-2' } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json().type).toContain('invalid-api-params');
    expect(await user.client.call('POST', '/auth/update-password', { body: { old_password: user.password, new_password: 'brand-new-1', new_password2: 'brand-new-1' } })).toEqual({});
    expect((await authorize({ type: 'keypair', domain: 'default', username: user.email, password: 'brand-new-1' })).status).toBe(200);
    expect((await authorize({ type: 'keypair', domain: 'default', username: user.email, password: user.password })).status).toBe(401);
  });

  it('stores passwords as scrypt hashes, never in clear', async () => {
    const row = await t.app.db.selectFrom('users').select('password').where('email', '=', t.adminCreds.email).executeTakeFirstOrThrow();
    expect(row.password).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(row.password).not.toContain(ADMIN_PASSWORD);
  });

  it('update-full-name changes only the caller', async () => {
    const user = await t.createUser();
    expect(await user.client.call('POST', '/auth/update-full-name', { body: { email: user.email, full_name: 'Ada Lovelace' } })).toEqual({});
    const row = await t.app.db.selectFrom('users').select('full_name').where('uuid', '=', user.uuid).executeTakeFirstOrThrow();
    expect(row.full_name).toBe('Ada Lovelace');
    const other = await user.client.request('POST', '/auth/update-full-name', { body: { email: t.adminCreds.email, full_name: 'Mallory' } });
    expect(other.status).toBe(403);
  });
});

describe('SSH keypair', () => {
  it('is null until generated, then an ed25519 pair in OpenSSH format that belongs together', async () => {
    const user = await t.createUser();
    expect(await user.client.call('GET', '/auth/ssh-keypair')).toEqual({ ssh_public_key: null });
    const pair = await user.client.call('PATCH', '/auth/ssh-keypair');
    expect(pair.ssh_public_key).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5/);
    expect(pair.ssh_private_key).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    const priv = sshpk.parsePrivateKey(pair.ssh_private_key, 'ssh');
    expect(priv.type).toBe('ed25519');
    expect(priv.toPublic().fingerprint('sha256').toString()).toBe(sshpk.parseKey(pair.ssh_public_key, 'ssh').fingerprint('sha256').toString());
    expect(await user.client.call('GET', '/auth/ssh-keypair')).toEqual({ ssh_public_key: pair.ssh_public_key });
  });

  it('stores an uploaded pair with one trailing newline, and rejects garbage or a mismatched pair', async () => {
    const user = await t.createUser();
    const a = await user.client.call('PATCH', '/auth/ssh-keypair');
    const b = await user.client.call('PATCH', '/auth/ssh-keypair');
    const stored = await user.client.call('POST', '/auth/ssh-keypair', { body: { pubkey: a.ssh_public_key.trim() + '\n\n', privkey: a.ssh_private_key.trim() } });
    expect(stored.ssh_public_key).toBe(a.ssh_public_key.trim() + '\n');
    expect(stored.ssh_private_key).toBe(a.ssh_private_key.trim() + '\n');
    expect((await user.client.request('POST', '/auth/ssh-keypair', { body: { pubkey: 'junk', privkey: 'junk' } })).status).toBe(400);
    expect((await user.client.request('POST', '/auth/ssh-keypair', { body: { pubkey: a.ssh_public_key, privkey: b.ssh_private_key } })).status).toBe(400);
  });
});

describe('GET /auth/role and echo', () => {
  it('echoes for GET and POST on /auth and /auth/test', async () => {
    expect(await t.admin.call('GET', '/auth', { query: { echo: 'hi' } })).toEqual({ authorized: 'yes', echo: 'hi' });
    expect(await t.admin.call('POST', '/auth/test', { body: { echo: 'yo' } })).toEqual({ authorized: 'yes', echo: 'yo' });
  });

  it('reports superadmin roles', async () => {
    expect(await t.admin.call('GET', '/auth/role')).toEqual({ global_role: 'superadmin', domain_role: 'admin', group_role: null });
  });

  it('answers 404 for a project the caller is not in, and 400 for a non-uuid', async () => {
    const user = await t.createUser();
    const res = await user.client.request('GET', '/auth/role', { query: { group: '00000000-0000-0000-0000-000000000000' } });
    expect(res.status).toBe(404);
    expect(res.json().type).toContain('object-not-found');
    expect((await user.client.request('GET', '/auth/role', { query: { group: 'nope' } })).status).toBe(400);
  });
});
