/**
 * Per-access-key rate limiting over a rolling 900-second window (CONTRACT §4). Each key keeps the times of
 * its counted requests in a ring; the oldest leave as the window rolls on. In memory: one manager process.
 */
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

export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly windowMs = RATE_LIMIT_WINDOW_S * 1000) {}

  /** Counts one request for the key (rejected ones too) and says whether it passes. */
  hit(accessKey: string, limit: number | null, now = Date.now()): RateLimitState {
    if (limit === null) return { limit: null, remaining: 0, reset: 0, exceeded: false };
    let window = this.windows.get(accessKey);
    if (!window) this.windows.set(accessKey, (window = new Window()));
    window.prune(now - this.windowMs);
    window.times.push(now);
    const count = window.count;
    const remaining = Math.max(0, limit - count);
    const oldest = window.times[window.head];
    const reset = remaining > 0 ? 0 : Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
    return { limit, remaining, reset, exceeded: count > limit };
  }

  reset(accessKey?: string): void {
    if (accessKey) this.windows.delete(accessKey);
    else this.windows.clear();
  }
}
