/** Self-signup behind BERTH_ALLOW_SIGNUP: an active user of project `default`, keypair rate limit 1000. */
import type { App } from '../app';
import { Problem } from '../http/problem';
import { createUser } from './create-user';

export async function signup(app: App, input: { domain: string; email: string; password: string; username?: string; full_name?: string }) {
  if (!app.settings.allowSignup) throw new Problem('generic-forbidden', 'Signup is disabled on this server.');
  const user = await createUser(app.db, {
    email: input.email,
    username: input.username ?? input.email,
    password: input.password,
    domainName: input.domain,
    role: 'user',
    fullName: input.full_name,
    keypair: { isAdmin: false, rateLimit: 1000 },
  });
  return { access_key: user.accessKey, secret_key: user.secretKey };
}
