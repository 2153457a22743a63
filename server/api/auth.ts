/** §Authentication and account. */
import { z } from 'zod';
import { route } from '../http/route';
import { uuid } from '../http/params';
import { login } from '../accounts/login';
import { signup } from '../accounts/signup';
import { oidcLogin } from '../accounts/oidc-login';
import { signout, updateFullName, roleIn } from '../accounts/profile';
import { updatePassword, updatePasswordNoAuth } from '../accounts/passwords';
import { getSshPublicKey, regenerateSshKeypair, uploadSshKeypair } from '../accounts/ssh-keypair';
import { Problem } from '../http/problem';

const echo = z.object({ echo: z.string() });
const echoHandler = ({ input }: { input: { echo: string } }) => ({ authorized: 'yes', echo: input.echo });
const text = () => z.string().min(1);

export const authRoutes = [
  route({ method: 'GET', path: ['/auth', '/auth/test'], privilege: 'user', status: null, input: echo, summary: 'Echo test of a signed request', handler: echoHandler }),
  route({ method: 'POST', path: ['/auth', '/auth/test'], privilege: 'user', status: null, input: echo, summary: 'Echo test of a signed request', handler: echoHandler }),
  route({
    method: 'POST', path: '/auth/authorize', privilege: 'none', status: null,
    input: z.object({ type: z.enum(['keypair', 'jwt']), domain: z.string(), username: text(), password: text() }),
    summary: 'Login: domain, username (or email) and password → the keypair',
    handler: async ({ app, input }) => {
      if (input.type === 'jwt') throw new Problem('invalid-api-params', 'Only type "keypair" is supported.');
      return { data: await login(app, input) };
    },
  }),
  route({
    method: 'POST', path: '/auth/oidc/authorize', privilege: 'none', status: null,
    input: z.object({ id_token: z.string().min(1).max(16 * 1024) }),
    summary: "Single sign-on login: the provider's ID token, checked by the manager → the keypair",
    handler: async ({ app, input }) => ({ data: await oidcLogin(app, input) }),
  }),
  route({
    method: 'GET', path: '/auth/role', privilege: 'user', status: null, input: z.object({ group: uuid().optional() }),
    summary: "The caller's global, domain and project roles",
    handler: ({ app, principal, input }) => roleIn(app, principal, input.group),
  }),
  route({
    method: 'POST', path: '/auth/signup', privilege: 'none', status: null,
    input: z.object({ domain: text(), email: z.email(), password: z.string().min(8, 'must be at least 8 characters'), username: z.string().min(1).optional(), full_name: z.string().optional() }),
    summary: 'Create an account (when BERTH_ALLOW_SIGNUP is set)',
    handler: ({ app, input }) => signup(app, input),
  }),
  route({
    method: 'POST', path: '/auth/signout', privilege: 'user', status: null, input: z.object({ email: text(), password: text() }),
    summary: "Deactivate the caller's account and keypairs",
    handler: ({ app, principal, input }) => signout(app, principal, input),
  }),
  route({
    method: 'POST', path: '/auth/update-password-no-auth', privilege: 'none', status: null,
    input: z.object({ domain: text(), username: text(), current_password: text(), new_password: z.string().min(8, 'must be at least 8 characters') }),
    summary: 'Change a password that expired through age',
    handler: ({ app, input }) => updatePasswordNoAuth(app, input),
  }),
  route({
    method: 'POST', path: '/auth/update-password', privilege: 'user', status: null,
    input: z.object({ old_password: text(), new_password: z.string().min(8, 'must be at least 8 characters'), new_password2: text() }),
    summary: "Change the caller's password",
    handler: ({ app, principal, input }) => updatePassword(app, principal, input),
  }),
  route({
    method: 'POST', path: '/auth/update-full-name', privilege: 'user', status: null, input: z.object({ email: text(), full_name: z.string().max(64) }),
    summary: "Change the caller's full name",
    handler: ({ app, principal, input }) => updateFullName(app, principal, input),
  }),
  route({ method: 'GET', path: '/auth/ssh-keypair', privilege: 'user', status: null, summary: "The caller's SSH public key", handler: ({ app, principal }) => getSshPublicKey(app, principal) }),
  route({ method: 'PATCH', path: '/auth/ssh-keypair', privilege: 'user', status: null, summary: 'Generate a new ed25519 SSH keypair', handler: ({ app, principal }) => regenerateSshKeypair(app, principal) }),
  route({
    method: 'POST', path: '/auth/ssh-keypair', privilege: 'user', status: null, input: z.object({ pubkey: text(), privkey: text() }), freeText: ['pubkey', 'privkey'],
    summary: 'Upload an SSH keypair',
    handler: ({ app, principal, input }) => uploadSshKeypair(app, principal, input),
  }),
];
