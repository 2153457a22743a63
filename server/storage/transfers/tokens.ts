/**
 * Storage transfer tokens (CONTRACT §9.4): HS256 JWTs signed with the storage-proxy secret, which is generated once
 * into `<dataDir>/storage-secret` (mode 0600) and read back on every start. Claims: `op` (`upload`|`download`),
 * `volume`, `vfid` (hex32), `relpath`, for uploads `size` and `session`, and `exp` (24 h by default,
 * BERTH_STORAGE_TOKEN_TTL seconds to change it). Berth adds `sub` and `ak` (the requesting user's uuid and access key, so a
 * transfer is re-authorized against the folder's current sharing when it runs), `host` (`<proxy>:<volume>`), `archive` for
 * downloads.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SignJWT, errors, jwtVerify } from 'jose';
import type { App } from '../../app';

export const SECRET_FILE = 'storage-secret';
export const DEFAULT_TOKEN_TTL_SECONDS = 24 * 3600;

export type TransferOp = 'upload' | 'download';

export interface TransferClaims {
  op: TransferOp;
  /** The volume name (`volume1`), as the storage proxy knows it. */
  volume: string;
  /** `<proxy>:<volume>` */
  host: string;
  /** Folder id, hex32. */
  vfid: string;
  relpath: string;
  /** The user the token was issued to, and the access key they asked with. */
  sub: string;
  ak: string;
  /** Uploads: the announced size and the upload session id. */
  size?: number;
  session?: string;
  /** Downloads: archive a directory as a zip. */
  archive?: boolean;
  exp: number;
}

const secrets = new WeakMap<App, Uint8Array>();

/** The storage secret of this data directory, created (0600) the first time it is needed. */
export function storageSecret(app: App): Uint8Array {
  const cached = secrets.get(app);
  if (cached) return cached;
  const file = path.join(app.settings.dataDir, SECRET_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    try {
      writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      // Another process created it first: use theirs.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    text = readFileSync(file, 'utf8').trim();
  }
  chmodSync(file, 0o600);
  if (text.length < 32) throw new Error(`${file} holds too short a secret`);
  const secret = new TextEncoder().encode(text);
  secrets.set(app, secret);
  return secret;
}

export function tokenLifetimeSeconds(): number {
  const configured = Number(process.env.BERTH_STORAGE_TOKEN_TTL);
  return Number.isFinite(configured) && configured > 0 ? Math.floor(configured) : DEFAULT_TOKEN_TTL_SECONDS;
}

export async function signTransferToken(app: App, claims: Omit<TransferClaims, 'exp'>): Promise<string> {
  const payload: Record<string, unknown> = { ...claims };
  for (const key of Object.keys(payload)) if (payload[key] === undefined) delete payload[key];
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + tokenLifetimeSeconds())
    .sign(storageSecret(app));
}

export type TokenFailure = 'missing' | 'invalid' | 'expired';

const MAX_VERIFIED = 10_000;
const verifiedByApp = new WeakMap<App, Map<string, TransferClaims>>();

/**
 * The verified claims, or why the token is refused. A chunked upload presents the same token on every PATCH: a
 * token whose signature was checked once is remembered until it expires (the secret never changes while running).
 */
export async function verifyTransferToken(app: App, token: string | null): Promise<TransferClaims | TokenFailure> {
  if (!token) return 'missing';
  let verified = verifiedByApp.get(app);
  if (!verified) verifiedByApp.set(app, (verified = new Map()));
  const known = verified.get(token);
  if (known) {
    if (known.exp * 1000 > Date.now()) return known;
    verified.delete(token);
    return 'expired';
  }
  const claims = await verifyUncached(app, token);
  if (typeof claims !== 'string') {
    if (verified.size >= MAX_VERIFIED) verified.clear();
    verified.set(token, claims);
  }
  return claims;
}

async function verifyUncached(app: App, token: string): Promise<TransferClaims | TokenFailure> {
  try {
    const { payload } = await jwtVerify(token, storageSecret(app), { algorithms: ['HS256'] });
    const c = payload as Partial<TransferClaims>;
    if ((c.op !== 'upload' && c.op !== 'download') || typeof c.vfid !== 'string' || typeof c.relpath !== 'string' || typeof c.sub !== 'string' || typeof c.ak !== 'string' || typeof c.host !== 'string' || typeof c.exp !== 'number') {
      return 'invalid';
    }
    if (c.op === 'upload' && (typeof c.session !== 'string' || typeof c.size !== 'number')) return 'invalid';
    return c as TransferClaims;
  } catch (err) {
    if (err instanceof errors.JWTExpired) return 'expired';
    return 'invalid';
  }
}
