/**
 * Per-access-key rate limiting over a rolling 900-second window (CONTRACT §4). Each key keeps the times of
 * its counted requests; the oldest leave as the window rolls on. In memory on PGlite (one process, a ring per key);
 * on PostgreSQL one row per key shared by every replica (SharedRateLimiter), so the limit holds whichever replica
 * a request reaches.
 */
import { sql } from 'kysely';
import type { Db } from '../db';

export const RATE_LIMIT_WINDOW_S = 900;
export const ANONYMOUS_RATE_LIMIT = 1000;

export interface RateLimitState {
  limit: number | null;
  remaining: number;
  /** Whole seconds until the oldest counted request leaves the window; 0 while requests remain. */
  reset: number;
  exceeded: boolean;
}

class Window {
  times: number[] = [];
  head = 0;
  get count(): number {
    return this.times.length - this.head;
  }
  prune(cutoff: number): void {
    while (this.head < this.times.length && this.times[this.head] <= cutoff) this.head++;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}

export interface RateLimits {
  /** Counts one request for the key (rejected ones too) and says whether it passes. */
  hit(accessKey: string, limit: number | null, now?: number): RateLimitState | Promise<RateLimitState>;
}

function stateOf(limit: number, count: number, oldest: number, now: number, windowMs: number): RateLimitState {
  const remaining = Math.max(0, limit - count);
  const reset = remaining > 0 ? 0 : Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
  return { limit, remaining, reset, exceeded: count > limit };
}

export class RateLimiter implements RateLimits {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly windowMs = RATE_LIMIT_WINDOW_S * 1000) {}

  /** Counts one request for the key (rejected ones too) and says whether it passes. */
  hit(accessKey: string, limit: number | null, now = Date.now()): RateLimitState {
    if (limit === null) return { limit: null, remaining: 0, reset: 0, exceeded: false };
    let window = this.windows.get(accessKey);
    if (!window) this.windows.set(accessKey, (window = new Window()));
    window.prune(now - this.windowMs);
    window.times.push(now);
    return stateOf(limit, window.count, window.times[window.head], now, this.windowMs);
  }

  reset(accessKey?: string): void {
    if (accessKey) this.windows.delete(accessKey);
    else this.windows.clear();
  }
}

/**
 * The window in PostgreSQL: one statement per request. INSERT … ON CONFLICT DO UPDATE locks the key's row and
 * computes the new counts from its latest committed version, so concurrent requests on several replicas are counted
 * one after the other and the (limit+1)th in the window is refused exactly. The row keeps a count per second (the
 * window is whole seconds here: a request leaves it 899–900 s later), at most 900 entries whatever the limit or the
 * rate, so a key that sends hundreds of requests a second costs each of them the same.
 */
export class SharedRateLimiter implements RateLimits {
  constructor(private readonly db: Db, private readonly windowMs = RATE_LIMIT_WINDOW_S * 1000) {}

  async hit(accessKey: string, limit: number | null, now = Date.now()): Promise<RateLimitState> {
    if (limit === null) return { limit: null, remaining: 0, reset: 0, exceeded: false };
    const second = Math.floor(now / 1000);
    const first = second - Math.ceil(this.windowMs / 1000) + 1;
    const { rows } = await sql<{ count: number; oldest: string }>`
      insert into rate_limit_windows as w (access_key, hits, seconds, counts) values (${accessKey}, '{}', array[${second}::bigint], array[1])
      on conflict (access_key) do update
        set (seconds, counts) = (
          select array_agg(s order by s), array_agg(c order by s)
          from (
            select s, sum(c)::int as c
            from (select * from unnest(w.seconds, w.counts) as b(s, c) where s >= ${first}::bigint union all select ${second}::bigint, 1) as kept
            group by s
          ) as merged
        )
      returning (select sum(c)::int from unnest(counts) as c) as count, seconds[1] as oldest`.execute(this.db);
    return stateOf(limit, Number(rows[0].count), Number(rows[0].oldest) * 1000, now, this.windowMs);
  }
}
