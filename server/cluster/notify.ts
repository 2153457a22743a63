/**
 * Messages between the replicas of one Berth (docs/architecture.md "Scale-out"). Two kinds:
 *  - events (session, status, task): persisted in `cluster_events` and announced with pg_notify in the same
 *    statement. A replica delivers its own events in process at once and skips them on the wire; after its LISTEN
 *    connection drops it catches up from the table, skipping ids it already delivered, so none is lost or doubled.
 *  - signals (wake the scheduler, drop a cache entry): pg_notify only; a signal missed during a reconnect is
 *    harmless because every receiver also has a periodic fallback (pass timer, cache TTL).
 * On PGlite there is one process: events are delivered in process and signals go nowhere.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../db';
import { postgresDriver } from '../db/postgres-driver';

const EVENTS = 'berth_events';
const SIGNALS = 'berth_signals';
/** NOTIFY payloads are limited to 8000 bytes: a bigger event travels as its id and is read from the table. */
const INLINE_LIMIT = 7000;
/** How far before the link was lost a catch-up looks (commits land after their row's timestamp). */
const CATCH_UP_MARGIN_MS = 10_000;
const RECONNECT_MS = 1_000;
const PRUNE_EVERY_MS = 10 * 60_000;
const KEEP_EVENTS = '1 hour';
const REMEMBERED_IDS = 20_000;

export type EventHandler = (kind: string, body: unknown) => void;
export type SignalHandler = (body: unknown) => void;

export interface Cluster {
  /** This process, as other replicas see it in messages and in pg_stat_activity. */
  readonly replicaId: string;
  /** Whether other replicas can exist (PostgreSQL). */
  readonly shared: boolean;
  publish(kind: string, body: unknown): void;
  onEvent(handler: EventHandler): void;
  /** Tells every other replica; never delivered here. */
  signal(kind: string, body?: unknown): void;
  onSignal(kind: string, handler: SignalHandler): () => void;
  /** Whether no other replica is connected to the database (recovery that would break a live replica's work). */
  alone(): Promise<boolean>;
  /** Resolves once everything published so far is on the wire (tests, shutdown). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** One process (PGlite): events are delivered where they are raised; there is nobody to signal. */
export class LocalCluster implements Cluster {
  readonly replicaId = randomUUID();
  readonly shared = false;
  private readonly handlers: EventHandler[] = [];

  publish(kind: string, body: unknown): void {
    for (const handler of this.handlers) handler(kind, body);
  }
  onEvent(handler: EventHandler): void {
    this.handlers.push(handler);
  }
  signal(): void {}
  async alone(): Promise<boolean> {
    return true;
  }
  onSignal(): () => void {
    return () => undefined;
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

interface Wire {
  id: number;
  origin: string;
  kind?: string;
  body?: unknown;
}

export class PgCluster implements Cluster {
  readonly replicaId = randomUUID();
  readonly shared = true;
  private readonly handlers: EventHandler[] = [];
  private readonly signalHandlers = new Map<string, Set<SignalHandler>>();
  /** Ids of other replicas' events already delivered, oldest first (catch-up skips them). */
  private readonly delivered = new Set<number>();
  private queue: { kind: string; body: string }[] = [];
  private sending: Promise<void> = Promise.resolve();
  private listener: pg.Client | null = null;
  private lostAt: number | null = null;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private readonly pruneTimer: NodeJS.Timeout;

  private constructor(private readonly db: Db, private readonly url: string, private readonly log: Logger) {
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.pruneTimer.unref();
  }

  /** Connects the LISTEN connection before returning, so no event raised after start is missed. */
  static async open(db: Db, url: string, log: Logger): Promise<PgCluster> {
    const cluster = new PgCluster(db, url, log);
    await cluster.connect();
    void cluster.prune();
    return cluster;
  }

  publish(kind: string, body: unknown): void {
    for (const handler of this.handlers) handler(kind, body);
    this.queue.push({ kind, body: JSON.stringify(body) });
    // One statement at a time, in order: a replica's events reach the others in the order it raised them.
    if (this.queue.length === 1) this.sending = this.sending.then(() => this.send());
  }

  onEvent(handler: EventHandler): void {
    this.handlers.push(handler);
  }

  signal(kind: string, body: unknown = null): void {
    const payload = JSON.stringify({ origin: this.replicaId, kind, body });
    sql`select pg_notify(${SIGNALS}, ${payload})`.execute(this.db).catch((err) => this.log.warn({ err, kind }, 'cluster signal failed'));
  }

  onSignal(kind: string, handler: SignalHandler): () => void {
    let set = this.signalHandlers.get(kind);
    if (!set) this.signalHandlers.set(kind, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  async flush(): Promise<void> {
    await this.sending;
  }

  async alone(): Promise<boolean> {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and application_name like 'berth-events pid=%'`.execute(this.db);
    return rows[0].n <= 1;
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    clearInterval(this.pruneTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }

  private async send(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    if (!batch.length) return;
    try {
      await sql`
        with e as (
          insert into cluster_events (origin, kind, body)
          select ${this.replicaId}, k, b::jsonb from unnest(${batch.map((m) => m.kind)}::text[], ${batch.map((m) => m.body)}::text[]) with ordinality as t(k, b, n)
          order by n
          returning id, kind, body
        )
        select pg_notify(${EVENTS}, case when length(body::text) < ${INLINE_LIMIT}
          then json_build_object('id', id, 'origin', ${this.replicaId}::text, 'kind', kind, 'body', body)::text
          else json_build_object('id', id, 'origin', ${this.replicaId}::text)::text end)
        from e order by id`.execute(this.db);
    } catch (err) {
      this.log.error({ err, events: batch.length }, 'publishing events to the other replicas failed');
    }
    if (this.queue.length) return this.send();
  }

  private async connect(): Promise<void> {
    const { Client } = await postgresDriver();
    const client = new Client({ connectionString: this.url, application_name: `berth-events pid=${process.pid}`, keepAlive: true });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (msg) => this.receive(msg.channel, msg.payload ?? ''));
    await client.connect();
    await client.query(`listen ${EVENTS}; listen ${SIGNALS}`);
    this.listener = client;
    if (this.lostAt !== null) {
      const since = new Date(this.lostAt - CATCH_UP_MARGIN_MS);
      this.lostAt = null;
      await this.catchUp(since);
    }
  }

  private lost(client: pg.Client): void {
    if (this.listener !== client || this.closed) return;
    this.listener = null;
    this.lostAt = Date.now();
    this.log.warn('lost the event connection to PostgreSQL; reconnecting');
    client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect().catch((err) => {
        this.log.warn({ err: err instanceof Error ? err.message : err }, 'event connection: reconnect failed');
        this.scheduleReconnect();
      });
    }, RECONNECT_MS);
    this.reconnectTimer.unref();
  }

  private async catchUp(since: Date): Promise<void> {
    const rows = await this.db
      .selectFrom('cluster_events')
      .select(['id', 'origin', 'kind', 'body'])
      .where('created_at', '>', since)
      .where('origin', '<>', this.replicaId)
      .orderBy('id')
      .execute();
    for (const row of rows) this.deliver({ id: Number(row.id), origin: row.origin, kind: row.kind, body: row.body });
  }

  private receive(channel: string, payload: string): void {
    let message: Wire & { kind?: string; body?: unknown };
    try {
      message = JSON.parse(payload);
    } catch {
      return;
    }
    if (message.origin === this.replicaId) return;
    if (channel === SIGNALS) {
      for (const handler of this.signalHandlers.get(message.kind ?? '') ?? []) handler(message.body);
      return;
    }
    if (message.kind !== undefined) return this.deliver(message);
    // Too big for NOTIFY: read it.
    void this.db
      .selectFrom('cluster_events')
      .select(['id', 'origin', 'kind', 'body'])
      .where('id', '=', message.id)
      .executeTakeFirst()
      .then((row) => row && this.deliver({ id: Number(row.id), origin: row.origin, kind: row.kind, body: row.body }))
      .catch((err) => this.log.warn({ err }, 'reading a large event failed'));
  }

  private deliver(message: Wire): void {
    if (this.delivered.has(message.id)) return;
    this.delivered.add(message.id);
    if (this.delivered.size > REMEMBERED_IDS) {
      for (const id of this.delivered) {
        this.delivered.delete(id);
        if (this.delivered.size <= REMEMBERED_IDS / 2) break;
      }
    }
    for (const handler of this.handlers) {
      try {
        handler(message.kind!, message.body);
      } catch (err) {
        this.log.error({ err, kind: message.kind }, 'event handler failed');
      }
    }
  }

  private async prune(): Promise<void> {
    await sql`delete from cluster_events where created_at < now() - ${KEEP_EVENTS}::interval`
      .execute(this.db)
      .catch((err) => this.log.warn({ err }, 'pruning cluster events failed'));
  }
}
