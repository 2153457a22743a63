/**
 * `npx berth …` / `npm run cli -- …`: a small command line over the signed API, using the one signing client.
 * Credentials come from BERTH_ACCESS_KEY/BERTH_SECRET_KEY, or from the file `berth login` writes (mode 0600).
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline/promises';
import { ApiError, BerthClient } from './client';

interface Saved {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  email?: string;
}

const USAGE = `Usage: berth <command> [options]

  login [--endpoint URL] [--domain D] [--username U] [--password P]
                         log in with a password and save the keypair
  logout                 forget the saved keypair
  whoami                 who the saved keypair belongs to
  version                the server's API version
  config get KEY [--prefix]        raw configuration read (superadmin)
  config set KEY VALUE             raw configuration write (superadmin)
  config delete KEY [--prefix]     raw configuration delete (superadmin)
  request METHOD PATH [JSON]       any signed request; prints the JSON answer

Environment: BERTH_ENDPOINT (default http://127.0.0.1:8081), BERTH_ACCESS_KEY, BERTH_SECRET_KEY,
BERTH_PASSWORD (for login), BERTH_CLI_CONFIG (where login saves the keypair).`;

const configPath = () => process.env.BERTH_CLI_CONFIG || path.join(homedir(), '.config', 'berth', 'credentials.json');
const defaultEndpoint = () => process.env.BERTH_ENDPOINT || 'http://127.0.0.1:8081';

function loadSaved(): Saved | null {
  if (process.env.BERTH_ACCESS_KEY && process.env.BERTH_SECRET_KEY) {
    return { endpoint: defaultEndpoint(), accessKey: process.env.BERTH_ACCESS_KEY, secretKey: process.env.BERTH_SECRET_KEY };
  }
  const file = configPath();
  if (!existsSync(file)) return null;
  const saved = JSON.parse(readFileSync(file, 'utf8')) as Saved;
  return { ...saved, endpoint: process.env.BERTH_ENDPOINT || saved.endpoint };
}

function signedClient(): BerthClient {
  const saved = loadSaved();
  if (!saved) throw new UsageError('Not logged in: run `berth login` or set BERTH_ACCESS_KEY and BERTH_SECRET_KEY.');
  return new BerthClient(saved);
}

class UsageError extends Error {}

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

async function login(args: string[]): Promise<unknown> {
  const { values } = parseArgs({
    args,
    options: { endpoint: { type: 'string' }, domain: { type: 'string' }, username: { type: 'string' }, password: { type: 'string' } },
  });
  const endpoint = values.endpoint ?? defaultEndpoint();
  const username = values.username ?? (await ask('Email or username: '));
  const password = values.password ?? process.env.BERTH_PASSWORD ?? (await ask('Password: '));
  const client = new BerthClient({ endpoint });
  const { data } = await client.call('POST', '/auth/authorize', {
    body: { type: 'keypair', domain: values.domain ?? 'default', username, password },
  });
  const saved: Saved = { endpoint, accessKey: data.access_key, secretKey: data.secret_key, email: username };
  const file = configPath();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(saved, null, 2) + '\n', { mode: 0o600 });
  client.close();
  return { logged_in: true, endpoint, access_key: data.access_key, role: data.role };
}

async function run(argv: string[]): Promise<unknown> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'login':
      return login(rest);
    case 'logout': {
      if (existsSync(configPath())) writeFileSync(configPath(), '{}\n', { mode: 0o600 });
      return { logged_out: true };
    }
    case 'whoami': {
      const client = signedClient();
      const role = await client.call('GET', '/auth/role');
      const saved = loadSaved()!;
      return { endpoint: saved.endpoint, access_key: saved.accessKey, email: saved.email ?? null, ...role };
    }
    case 'version':
      return signedClient().call('GET', '/v2');
    case 'config': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { prefix: { type: 'boolean', default: false } } });
      const [action, key, value] = positionals;
      if (!key) throw new UsageError('config needs a KEY');
      if (action === 'get') return signedClient().call('POST', '/config/get', { body: { key, prefix: values.prefix } });
      if (action === 'delete') return signedClient().call('POST', '/config/delete', { body: { key, prefix: values.prefix } });
      if (action === 'set') {
        if (value === undefined) throw new UsageError('config set needs a VALUE');
        return signedClient().call('POST', '/config/set', { body: { key, value } });
      }
      throw new UsageError(`unknown config action: ${action ?? ''}`);
    }
    case 'request': {
      const [method, requestPath, body] = rest;
      if (!method || !requestPath) throw new UsageError('request needs METHOD and PATH');
      return signedClient().call(method.toUpperCase(), requestPath, body ? { rawBody: body } : {});
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return undefined;
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

run(process.argv.slice(2))
  .then((result) => {
    if (result !== undefined) console.log(JSON.stringify(result, null, 2));
    process.exit(0);
  })
  .catch((err: unknown) => {
    if (err instanceof ApiError) console.error(`error: ${err.status} ${err.problem.title ?? ''} — ${err.problem.detail ?? ''}`);
    else if (err instanceof UsageError) console.error(`error: ${err.message}\n\n${USAGE}`);
    else console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(err instanceof UsageError ? 2 : 1);
  });
