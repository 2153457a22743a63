/**
 * Container registries as stored: one row per (registry, project), so a registry is the rows sharing a name;
 * the checks its create and modify operations share.
 */
import type { App } from '../app';
import { badRequest as invalid } from '../http/problem';

export const REGISTRY_TYPES = ['docker', 'harbor', 'harbor2', 'github', 'gitlab', 'ecr', 'ecr-public', 'local'] as const;

type RegistryRow = Awaited<ReturnType<typeof loadRows>>[number];

export function loadRows(app: App, hostname?: string) {
  let q = app.db.selectFrom('container_registries').selectAll();
  if (hostname !== undefined) q = q.where('registry_name', '=', hostname);
  return q.orderBy('registry_name').orderBy('project').execute();
}

/** One registry object from the rows sharing a registry_name. */
export function toRegistry(rows: RegistryRow[]) {
  const first = rows[0];
  const projects = rows.map((r) => r.project).filter((p): p is string => p !== null);
  const config = {
    url: first.url,
    type: first.type,
    project: projects,
    username: first.username,
    password: first.password,
    ssl_verify: first.ssl_verify,
    is_global: first.is_global,
  };
  return { id: first.id, hostname: first.registry_name, registry_name: first.registry_name, ...config, config };
}

export async function loadRegistry(app: App, hostname: string) {
  const rows = await loadRows(app, hostname);
  return rows.length ? toRegistry(rows) : null;
}

export function projectList(list: (string | null)[] | null | undefined): (string | null)[] {
  const projects = [...new Set((list ?? []).filter((p): p is string => typeof p === 'string' && p.trim() !== ''))];
  return projects.length ? projects : [null];
}

export function checkUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw invalid(`url must be an http(s) URL: ${url}`);
  }
  return url;
}

export interface RegistryProps {
  url?: string | null;
  type?: string | null;
  project?: (string | null)[] | null;
  username?: string | null;
  password?: string | null;
  ssl_verify?: boolean | null;
  is_global?: boolean | null;
}

