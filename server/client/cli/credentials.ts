/** Where the CLI keeps its keypair: BERTH_ACCESS_KEY/BERTH_SECRET_KEY, else the file `berth login` wrote (0600). */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { BerthClient } from '../client';

export interface Saved {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  email?: string;
}

export class UsageError extends Error {}

export const configPath = () => process.env.BERTH_CLI_CONFIG || path.join(homedir(), '.config', 'berth', 'credentials.json');
export const defaultEndpoint = () => process.env.BERTH_ENDPOINT || 'http://127.0.0.1:8081';

export function loadSaved(): Saved | null {
  if (process.env.BERTH_ACCESS_KEY && process.env.BERTH_SECRET_KEY) {
    return { endpoint: defaultEndpoint(), accessKey: process.env.BERTH_ACCESS_KEY, secretKey: process.env.BERTH_SECRET_KEY };
  }
  const file = configPath();
  if (!existsSync(file)) return null;
  const saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<Saved>;
  if (!saved.accessKey || !saved.secretKey || !saved.endpoint) return null;
  return { ...(saved as Saved), endpoint: process.env.BERTH_ENDPOINT || saved.endpoint };
}

export function save(saved: Saved | Record<string, never>): void {
  const file = configPath();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(saved, null, 2) + '\n', { mode: 0o600 });
}

export function signedClient(): BerthClient {
  const saved = loadSaved();
  if (!saved) throw new UsageError('Not logged in: run `berth login` or set BERTH_ACCESS_KEY and BERTH_SECRET_KEY.');
  return new BerthClient(saved);
}
