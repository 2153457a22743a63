/**
 * Leader election for the singletons (docs/architecture.md "Scale-out"): each singleton is a session-level
 * advisory lock held on one dedicated connection of this replica. The server drops the locks the moment that
 * connection closes (the process was killed, the machine went away), so a replica trying every TRY_EVERY_MS takes
 * over within about that long. The holder checks its connection at the same pace and stops its singletons when it
 * is gone, before anyone else can have started them for long; allocation itself stays transactional with row
 * locks, so a short overlap cannot give a slot twice.
 * On PGlite (one process) every singleton simply runs.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import { postgresDriver } from '../db/postgres-driver';

const TRY_EVERY_MS = 2_000;
/** Advisory lock keys: (class, hash of the singleton's name); the class keeps clear of other users of the lock space. */
const LOCK_CLASS = 0x62657274; // 'bert'

export interface Singleton {
  name: string;
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
}

interface Entry {
  singleton: Singleton;
  held: boolean;
  /** The start or stop in progress: the next change waits for it. */
  change: Promise<void>;
}

export interface LeaseEvent {
  name: string;
  held: boolean;
}

export class Leases {
  private readonly entries = new Map<string, Entry>();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly listeners: ((event: LeaseEvent) => void)[] = [];

  /** url: PostgreSQL to elect on; null runs every singleton at once (PGlite). */
  constructor(private readonly url: string | null, private readonly log: Logger) {}

  /** Runs the singleton here while this replica holds its lease. */
  add(singleton: Singleton): void {
    const entry: Entry = { singleton, held: false, change: Promise.resolve() };
    this.entries.set(singleton.name, entry);
    if (!this.url) this.set(entry, true);
    else void this.tick();
  }

  held(name: string): boolean {
    return this.entries.get(name)?.held ?? false;
  }

  onChange(listener: (event: LeaseEvent) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Starts competing for the leases (on PGlite add() already started them); resolves after the first try, so a
   * replica that wins at start runs its singletons' first start (reconciliation) before it takes requests.
   */
  async start(): Promise<void> {
    if (!this.url || this.timer) return;
    this.timer = setInterval(() => void this.tick(), TRY_EVERY_MS);
    this.timer.unref();
    await this.tick();
  }

  /** Waits for the singletons started so far (their first start, e.g. reconciliation, is done). */
  async settled(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.change));
  }

  /** Stops every singleton held and releases the leases (ending the connection releases the locks). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const entry of this.entries.values()) this.set(entry, false);
    await this.settled();
    await this.client?.end().catch(() => undefined);
    this.client = null;
  }

  private set(entry: Entry, held: boolean): void {
    if (entry.held === held) return;
    entry.held = held;
    const { singleton } = entry;
    entry.change = entry.change.then(async () => {
      try {
        if (held) await singleton.start();
        else await singleton.stop();
      } catch (err) {
        this.log.error({ err, singleton: singleton.name }, held ? 'starting a singleton failed' : 'stopping a singleton failed');
      }
    });
    if (this.url) this.log.info({ singleton: singleton.name, replicaPid: process.pid }, held ? 'lease acquired' : 'lease released');
    for (const listener of this.listeners) listener({ name: singleton.name, held });
  }

  private ticking: Promise<void> | null = null;

  /** One try at a time (a connection runs one query at a time). */
  private tick(): Promise<void> {
    this.ticking ??= this.tryLeases().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async tryLeases(): Promise<void> {
    if (this.closed || !this.url) return;
    try {
      const client = await this.connection();
      const wanted = [...this.entries.values()].filter((e) => !e.held);
      if (!wanted.length) {
        await client.query('select 1');
        return;
      }
      const { rows } = await client.query<{ name: string; got: boolean }>(
        'select name, pg_try_advisory_lock($1::int, hashtext(name)) as got from unnest($2::text[]) as name',
        [LOCK_CLASS, wanted.map((e) => e.singleton.name)],
      );
      if (this.closed) return;
      for (const row of rows) if (row.got) this.set(this.entries.get(row.name)!, true);
    } catch (err) {
      this.log.warn({ err: err instanceof Error ? err.message : err }, 'lease connection failed; singletons stop until it is back');
      this.drop();
    }
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const { Client } = await postgresDriver();
      const client = new Client({ connectionString: this.url!, application_name: `berth-leases pid=${process.pid}`, keepAlive: true });
      client.on('error', () => this.drop(client));
      client.on('end', () => this.drop(client));
      try {
        await client.connect();
        this.client = client;
      } finally {
        this.connecting = null;
      }
    })();
    return this.connecting.then(() => this.client!);
  }

  /** The connection is gone, and with it every lock: stop what ran under them. */
  private drop(client = this.client): void {
    if (client && client !== this.client) return;
    this.client?.end().catch(() => undefined);
    this.client = null;
    if (this.closed) return;
    for (const entry of this.entries.values()) this.set(entry, false);
  }
}
