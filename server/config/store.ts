/**
 * The raw configuration store: a flat key space with `/` as the delimiter, like etcd. Prefix reads and deletes
 * use plain string-prefix matching, as the spec says: `some/key1` also matches `some/key12` and its children.
 */
import { sql } from 'kysely';
import type { Db } from '../db';
import { LocalCluster, type Cluster } from '../cluster/notify';

export type ConfigTree = { [key: string]: string | ConfigTree };

/** Escapes LIKE wildcards so a prefix matches literally. */
function likePrefix(prefix: string): string {
  return prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
}

export class ConfigStore {
  private readonly listeners: ((key: string) => void)[] = [];

  /** Writes are announced to every replica (cluster signal `config`), so what mirrors a key reloads it. */
  constructor(private readonly db: Db, private readonly cluster: Cluster = new LocalCluster()) {
    cluster.onSignal('config', (key) => this.changed(String(key), false));
  }

  /** Called with the key (or prefix) written here or on another replica. */
  onChange(listener: (key: string) => void): void {
    this.listeners.push(listener);
  }

  private changed(key: string, here = true): void {
    if (here) this.cluster.signal('config', key);
    for (const listener of this.listeners) listener(key);
  }

  async get(key: string): Promise<string | null> {
    const row = await this.db.selectFrom('config_kv').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value ?? null;
  }

  /** Every key that starts with `prefix`, nested by the `/`-separated remainder ('' holds the prefix's own value). */
  async getPrefix(prefix: string): Promise<ConfigTree> {
    const rows = await this.db
      .selectFrom('config_kv')
      .select(['key', 'value'])
      .where(sql<boolean>`key like ${likePrefix(prefix)} escape '\\'`)
      .orderBy('key')
      .execute();
    const tree: ConfigTree = {};
    for (const { key, value } of rows) {
      const parts = key.slice(prefix.length).replace(/^\//, '').split('/');
      let node = tree;
      for (const part of parts.slice(0, -1)) {
        const next = node[part];
        if (typeof next === 'object') node = next;
        else node = node[part] = typeof next === 'string' ? { '': next } : {};
      }
      const last = parts[parts.length - 1];
      const existing = node[last];
      if (typeof existing === 'object') existing[''] = value;
      else node[last] = value;
    }
    return tree;
  }

  async set(key: string, value: string): Promise<void> {
    await this.db
      .insertInto('config_kv')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
    this.changed(key);
  }

  /** Writes a nested object as flattened keys under `key`. */
  async setTree(key: string, tree: Record<string, unknown>): Promise<void> {
    const entries: { key: string; value: string }[] = [];
    const walk = (base: string, node: Record<string, unknown>) => {
      for (const [k, v] of Object.entries(node)) {
        const full = k === '' ? base : `${base}/${k}`;
        if (v !== null && typeof v === 'object') walk(full, v as Record<string, unknown>);
        else entries.push({ key: full, value: String(v) });
      }
    };
    walk(key, tree);
    await this.db.transaction().execute(async (trx) => {
      for (const entry of entries) {
        await trx
          .insertInto('config_kv')
          .values(entry)
          .onConflict((oc) => oc.column('key').doUpdateSet({ value: entry.value }))
          .execute();
      }
    });
    this.changed(key);
  }

  async delete(key: string): Promise<void> {
    await this.db.deleteFrom('config_kv').where('key', '=', key).execute();
    this.changed(key);
  }

  async deletePrefix(prefix: string): Promise<void> {
    await this.db.deleteFrom('config_kv').where(sql<boolean>`key like ${likePrefix(prefix)} escape '\\'`).execute();
    this.changed(prefix);
  }
}
