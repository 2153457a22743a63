/** `berth login | logout | whoami | version`. */
import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline/promises';
import { BerthClient } from '../client';
import { defaultEndpoint, loadSaved, save, signedClient } from './credentials';

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

export async function login(args: string[]): Promise<unknown> {
  const { values } = parseArgs({
    args,
    options: { endpoint: { type: 'string' }, domain: { type: 'string' }, username: { type: 'string' }, password: { type: 'string' } },
  });
  const endpoint = values.endpoint ?? defaultEndpoint();
  const username = values.username ?? (await ask('Email or username: '));
  const password = values.password ?? process.env.BERTH_PASSWORD ?? (await ask('Password: '));
  const client = new BerthClient({ endpoint });
  try {
    const { data } = await client.call('POST', '/auth/authorize', {
      body: { type: 'keypair', domain: values.domain ?? 'default', username, password },
    });
    save({ endpoint, accessKey: data.access_key, secretKey: data.secret_key, email: username });
    return { logged_in: true, endpoint, access_key: data.access_key, role: data.role };
  } finally {
    client.close();
  }
}

export function logout(): unknown {
  save({});
  return { logged_out: true };
}

export async function whoami(): Promise<unknown> {
  const role = await signedClient().call('GET', '/auth/role');
  const saved = loadSaved()!;
  return { endpoint: saved.endpoint, access_key: saved.accessKey, email: saved.email ?? null, ...role };
}

export function version(): Promise<unknown> {
  return signedClient().call('GET', '/v2');
}
