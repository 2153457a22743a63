/**
 * Storage hosts (ARCHITECTURE "Storage"): a host is `<proxy>:<volume>`, a directory on this machine holding one
 * directory per folder, named by the folder's hex32 id (mode 0700, owned by the kernel uid when Berth runs as root,
 * so sandboxed sessions can write it and nobody else on the host can read it). Deleted folders are moved aside
 * into `<volume>/.trash/` (mode 0700, root's) until a superadmin purges them.
 *
 * - `local:volume1` is always there, at `<BERTH_DATA_DIR>/vfolders/volume1`.
 * - BERTH_STORAGE_VOLUMES adds more: a JSON array of `{proxy, volume, path, backend?, capabilities?}`; `path` must
 *   be an existing directory (a mounted file system, typically). An entry for `local:volume1` moves that volume.
 * - The default host is the config key `volumes/default_host`, else BERTH_STORAGE_DEFAULT_HOST, else
 *   `local:volume1`; an empty value means "no default".
 *
 * Usage figures come from statfs on the volume, cached for up to 60 s (CONTRACT §17).
 */
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { App } from '../app';
import { Problem, badRequest } from '../http/problem';
import { toHex32 } from './ids';

export const STORAGE_VOLUMES_ENV = 'BERTH_STORAGE_VOLUMES';
export const DEFAULT_HOST_ENV = 'BERTH_STORAGE_DEFAULT_HOST';
export const DEFAULT_HOST_CONFIG_KEY = 'volumes/default_host';
export const LOCAL_HOST = 'local:volume1';
export const TRASH_DIR = '.trash';

const USAGE_TTL_MS = 60_000;
const DEFAULT_CAPABILITIES = ['vfolder', 'quota', 'metric'];
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface StorageVolume {
  proxy: string;
  volume: string;
  /** `<proxy>:<volume>` */
  host: string;
  /** The real path of the volume's directory. */
  path: string;
  backend: string;
  capabilities: string[];
}

export interface VolumeUsage {
  used: number;
  total: number;
  percentage: number;
}

interface StorageState {
  volumes: Map<string, StorageVolume>;
  /** Where administrators mount devices (`/folders/_/mounts`): the parent of `volume1`. */
  mountRoot: string;
  usage: Map<string, { at: number; value: VolumeUsage }>;
}

const states = new WeakMap<App, StorageState>();

const volumeEntry = z.object({
  proxy: z.string().regex(NAME, 'must be 1-64 letters, digits, _ . or -'),
  volume: z.string().regex(NAME, 'must be 1-64 letters, digits, _ . or -'),
  path: z.string().refine((p) => path.isAbsolute(p) && !p.includes('\0'), 'must be an absolute path'),
  backend: z.string().regex(/^[A-Za-z0-9_.-]{1,32}$/).optional(),
  capabilities: z.array(z.string().regex(/^[a-z0-9_.-]{1,32}$/)).optional(),
});

/** Parses BERTH_STORAGE_VOLUMES; throws a readable error for a malformed value. */
export function parseVolumeSpec(text: string | undefined): z.infer<typeof volumeEntry>[] {
  if (!text || !text.trim()) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${STORAGE_VOLUMES_ENV} is not valid JSON`);
  }
  const result = z.array(volumeEntry).safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(`${STORAGE_VOLUMES_ENV}[${issue.path.join('.')}]: ${issue.message}`);
  }
  return result.data;
}

function prepareVolume(spec: { proxy: string; volume: string; path: string; backend?: string; capabilities?: string[] }, create: boolean): StorageVolume {
  if (create) mkdirSync(spec.path, { recursive: true, mode: 0o755 });
  if (!existsSync(spec.path) || !statSync(spec.path).isDirectory()) {
    throw new Error(`${STORAGE_VOLUMES_ENV}: ${spec.proxy}:${spec.volume} path ${spec.path} is not an existing directory`);
  }
  const real = realpathSync(spec.path);
  mkdirSync(path.join(real, TRASH_DIR), { recursive: true, mode: 0o700 });
  return {
    proxy: spec.proxy,
    volume: spec.volume,
    host: `${spec.proxy}:${spec.volume}`,
    path: real,
    backend: spec.backend ?? 'vfs',
    capabilities: spec.capabilities ?? DEFAULT_CAPABILITIES,
  };
}

function stateOf(app: App): StorageState {
  let state = states.get(app);
  if (state) return state;
  const root = path.join(app.settings.dataDir, 'vfolders');
  mkdirSync(root, { recursive: true, mode: 0o755 });
  const volumes = new Map<string, StorageVolume>();
  try {
    const extra = parseVolumeSpec(process.env[STORAGE_VOLUMES_ENV]);
    const overridesLocal = extra.some((v) => `${v.proxy}:${v.volume}` === LOCAL_HOST);
    if (!overridesLocal) volumes.set(LOCAL_HOST, prepareVolume({ proxy: 'local', volume: 'volume1', path: path.join(root, 'volume1') }, true));
    for (const spec of extra) {
      const volume = prepareVolume(spec, false);
      if (volumes.has(volume.host)) throw new Error(`${STORAGE_VOLUMES_ENV}: ${volume.host} is listed twice`);
      volumes.set(volume.host, volume);
    }
  } catch (err) {
    app.log.error({ err }, 'storage volumes are misconfigured');
    throw new Problem('server-misconfigured', err instanceof Error ? err.message : String(err));
  }
  state = { volumes, mountRoot: realpathSync(root), usage: new Map() };
  states.set(app, state);
  return state;
}

export function allVolumes(app: App): StorageVolume[] {
  return [...stateOf(app).volumes.values()];
}

export function findVolume(app: App, host: string): StorageVolume | undefined {
  return stateOf(app).volumes.get(host);
}

/** The volume of `host`, or 400 when there is no such storage host. */
export function volumeOf(app: App, host: string, field = 'host'): StorageVolume {
  const volume = findVolume(app, host);
  if (!volume) throw badRequest(`No such storage host: ${host}`, { [field]: 'unknown storage host' });
  return volume;
}

export function mountRoot(app: App): string {
  return stateOf(app).mountRoot;
}

/** The configured default host, or null when none is configured or it names no volume. */
export async function defaultHost(app: App): Promise<string | null> {
  const configured = await app.config.get(DEFAULT_HOST_CONFIG_KEY);
  const host = configured ?? process.env[DEFAULT_HOST_ENV] ?? LOCAL_HOST;
  return host && findVolume(app, host) ? host : null;
}

/** Used and total bytes of the volume's file system (statfs), cached for up to 60 s. */
export async function volumeUsage(app: App, volume: StorageVolume): Promise<VolumeUsage> {
  const cache = stateOf(app).usage;
  const cached = cache.get(volume.host);
  if (cached && Date.now() - cached.at < USAGE_TTL_MS) return cached.value;
  const fs = await statfs(volume.path);
  const total = fs.blocks * fs.bsize;
  const used = (fs.blocks - fs.bfree) * fs.bsize;
  const value = { used, total, percentage: total > 0 ? Math.round((used / total) * 10000) / 100 : 0 };
  cache.set(volume.host, { at: Date.now(), value });
  return value;
}

/** Where a managed folder's directory lives while it is live, and once it has been moved to the trash. */
export function managedFolderPath(volume: StorageVolume, folderId: string): string {
  return path.join(volume.path, toHex32(folderId));
}

export function trashedFolderPath(volume: StorageVolume, folderId: string): string {
  return path.join(volume.path, TRASH_DIR, toHex32(folderId));
}

/** The uid folders are handed to so sandboxed sessions can write them (null when Berth is not root). */
export function folderOwnerUid(app: App): number | null {
  return process.getuid?.() === 0 ? app.settings.kernelUid : null;
}
