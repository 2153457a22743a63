/**
 * Dotfiles of one scope — a user, a domain or a project — stored as a jsonb list on the owning row. Every change
 * reads, checks and writes that list in one transaction holding the row lock, so two concurrent writers of the
 * same path cannot both succeed and the limits hold under concurrency.
 */
import type { Transaction } from 'kysely';
import type { App } from '../app';
import { json } from '../db';
import type { Database, Dotfile } from '../db/schema';
import { notFound, Problem } from '../http/problem';
import { MAX_DOTFILES_PACKED_BYTES, MAX_DOTFILES_PER_SCOPE, lookupPath, packedSize } from './validation';

/** The row a scope's dotfiles live on: users.uuid, domains.name or groups.id. */
export type DotfileOwner = { kind: 'user' | 'domain' | 'group'; id: string };

export interface DotfileInput {
  path: string;
  permission: string;
  data: string;
}

const OWNER_TITLES = { user: 'No such user.', domain: 'No such domain.', group: 'No such project.' } as const;

const noSuchDotfile = (path: string) => notFound('No such dotfile.', `No dotfile at "${path}".`);

export async function listDotfiles(app: App, owner: DotfileOwner): Promise<Dotfile[]> {
  return (await read(app, owner)).map(({ path, permission, data }) => ({ path, permission, data }));
}

/** The single-item form: `perm` repeats `permission` for Backend.AI clients (CONTRACT §14.3). */
export async function getDotfile(app: App, owner: DotfileOwner, path: string): Promise<Dotfile & { perm: string }> {
  const found = findIn(await read(app, owner), path);
  if (!found) throw noSuchDotfile(path);
  return { path: found.path, permission: found.permission, perm: found.permission, data: found.data };
}

export async function createDotfile(app: App, owner: DotfileOwner, input: DotfileInput): Promise<void> {
  const target = lookupPath(input.path)!;
  await change(app, owner, (current) => {
    for (const file of current) {
      const existing = lookupPath(file.path);
      if (existing === target) throw new Problem('generic-bad-request', 'Dotfile already exists.', undefined, { title: 'Dotfile already exists.' });
      if (existing && (existing.startsWith(`${target}/`) || target.startsWith(`${existing}/`))) {
        throw new Problem('invalid-api-params', `The path clashes with the dotfile "${file.path}" (one would be a folder of the other).`, { path: 'clashes with another dotfile' });
      }
    }
    if (current.length >= MAX_DOTFILES_PER_SCOPE) {
      throw new Problem('generic-bad-request', `Dotfile creation limit reached: at most ${MAX_DOTFILES_PER_SCOPE} dotfiles per scope.`);
    }
    return [...current, { path: input.path, permission: input.permission, data: input.data }];
  });
}

/** Replaces the data and permission of the dotfile at `path`, keeping its place in the list. */
export async function updateDotfile(app: App, owner: DotfileOwner, input: DotfileInput): Promise<void> {
  await change(app, owner, (current) => {
    const found = findIn(current, input.path);
    if (!found) throw noSuchDotfile(input.path);
    return current.map((file) => (file === found ? { path: file.path, permission: input.permission, data: input.data } : file));
  });
}

export async function deleteDotfile(app: App, owner: DotfileOwner, path: string): Promise<void> {
  await change(app, owner, (current) => {
    const found = findIn(current, path);
    if (!found) throw noSuchDotfile(path);
    return current.filter((file) => file !== found);
  });
}

/** Compared by the file each path names inside /home/work, so `.vimrc` and `/home/work/.vimrc` are one dotfile. */
function findIn(list: Dotfile[], path: string): Dotfile | undefined {
  const target = lookupPath(path);
  return target === null ? undefined : list.find((file) => lookupPath(file.path) === target);
}

async function change(app: App, owner: DotfileOwner, edit: (current: Dotfile[]) => Dotfile[]): Promise<void> {
  await app.db.transaction().execute(async (trx) => {
    const current = await lock(trx, owner);
    if (current === undefined) throw notFound(OWNER_TITLES[owner.kind]);
    const next = edit(current);
    const packed = packedSize(next);
    if (packed > MAX_DOTFILES_PACKED_BYTES) {
      throw new Problem('generic-bad-request', `No leftover space for dotfile storage: the dotfiles of one scope may take at most ${MAX_DOTFILES_PACKED_BYTES} bytes packed (these would take ${packed}).`);
    }
    await store(trx, owner, next);
  });
}

async function read(app: App, owner: DotfileOwner): Promise<Dotfile[]> {
  const row = await (owner.kind === 'user'
    ? app.db.selectFrom('users').select('dotfiles').where('uuid', '=', owner.id).executeTakeFirst()
    : owner.kind === 'domain'
      ? app.db.selectFrom('domains').select('dotfiles').where('name', '=', owner.id).executeTakeFirst()
      : app.db.selectFrom('groups').select('dotfiles').where('id', '=', owner.id).executeTakeFirst());
  if (!row) throw notFound(OWNER_TITLES[owner.kind]);
  return row.dotfiles ?? [];
}

/** Reads the list with the owning row locked until the transaction ends; undefined when the row is gone. */
async function lock(trx: Transaction<Database>, owner: DotfileOwner): Promise<Dotfile[] | undefined> {
  const row = await (owner.kind === 'user'
    ? trx.selectFrom('users').select('dotfiles').where('uuid', '=', owner.id).forUpdate().executeTakeFirst()
    : owner.kind === 'domain'
      ? trx.selectFrom('domains').select('dotfiles').where('name', '=', owner.id).forUpdate().executeTakeFirst()
      : trx.selectFrom('groups').select('dotfiles').where('id', '=', owner.id).forUpdate().executeTakeFirst());
  return row ? (row.dotfiles ?? []) : undefined;
}

async function store(trx: Transaction<Database>, owner: DotfileOwner, list: Dotfile[]): Promise<void> {
  const dotfiles = json(list);
  if (owner.kind === 'user') await trx.updateTable('users').set({ dotfiles }).where('uuid', '=', owner.id).execute();
  else if (owner.kind === 'domain') await trx.updateTable('domains').set({ dotfiles }).where('name', '=', owner.id).execute();
  else await trx.updateTable('groups').set({ dotfiles }).where('id', '=', owner.id).execute();
}
