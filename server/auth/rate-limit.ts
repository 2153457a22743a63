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
 * computes the new list from its latest committed version, so concurrent requests on several replicas are counted
 * one after the other and the (limit+1)th in the window is refused exactly. Only the newest limit+1 times are
 * kept: every older one leaves the window before them, so the verdict is the same as with the whole list, and a
 * flood of refused requests cannot grow the row.
 */
export class SharedRateLimiter implements RateLimits {
  constructor(private readonly db: Db, private readonly windowMs = RATE_LIMIT_WINDOW_S * 1000) {}

  async hit(accessKey: string, limit: number | null, now = Date.now()): Promise<RateLimitState> {
    if (limit === null) return { limit: null, remaining: 0, reset: 0, exceeded: false };
    const cutoff = now - this.windowMs;
    const { rows } = await sql<{ count: number; oldest: string }>`
      insert into rate_limit_windows as w (access_key, hits) values (${accessKey}, array[${now}::bigint])
      on conflict (access_key) do update
        set hits = array(
          select h from (select h from unnest(w.hits) as h where h > ${cutoff}::bigint order by h desc limit ${limit}::int) as newest order by h
        ) || ${now}::bigint
      returning cardinality(hits) as count, hits[1] as oldest`.execute(this.db);
    return stateOf(limit, Number(rows[0].count), Number(rows[0].oldest), now, this.windowMs);
  }
}
