/**
 * The rate-limit window replicas share (server/auth/rate-limit.ts, SharedRateLimiter): exact counts, the window
 * rolling on, and a row that stays small whatever the rate (a key with a lifted limit sending hundreds of requests a
 * second once rewrote a list of every request in the window, under the key's lock, on each request). Run against
 * the project's database: PGlite in memory, or a fresh PostgreSQL database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../../server/db';
import { SharedRateLimiter } from '../../server/auth/rate-limit';
import { createTestDatabase } from '../helpers/berth';

let opened: OpenedDatabase;
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;

beforeAll(async () => {
  database = process.env.BERTH_TEST_DB === 'postgres' ? await createTestDatabase() : null;
  opened = await openDatabase({ url: database?.url });
});
afterAll(async () => {
  await opened?.close();
  await database?.drop();
});

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('SharedRateLimiter', () => {
  it('counts exactly, refuses the (limit+1)th in the window, and says when the oldest leaves', async () => {
    const limiter = new SharedRateLimiter(opened.db);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await limiter.hit('AKLIMIT1', 3, T0 + i * 250));
    expect(answers.map((a) => a.remaining)).toEqual([2, 1, 0, 0]);
    expect(answers.map((a) => a.exceeded)).toEqual([false, false, false, true]);
    // The first requests were in second T0: they leave the 900 s window 900 s after it began.
    expect(answers[3].reset).toBe(900);
    // The window is whole seconds: 900 s after T0 its second has left, with all four (the refused one counted too).
    const later = await limiter.hit('AKLIMIT1', 3, T0 + 900_000);
    expect(later).toMatchObject({ remaining: 2, exceeded: false });
  });

  it('concurrent requests are counted one after the other: exactly limit of them pass', async () => {
    const limiter = new SharedRateLimiter(opened.db);
    const answers = await Promise.all(Array.from({ length: 30 }, () => limiter.hit('AKLIMIT2', 20, T0)));
    expect(answers.filter((a) => !a.exceeded)).toHaveLength(20);
    expect(answers.map((a) => a.remaining).sort((a, b) => a - b)).toEqual([...Array(11).fill(0), ...Array.from({ length: 19 }, (_, i) => i + 1)]);
  });

  it('keeps one entry per second of the window, not one per request', async () => {
    const limiter = new SharedRateLimiter(opened.db);
    // 1,000 requests 1.2 s apart (each in its own second), over 1,200 s: the window keeps the seconds of the last
    // 900 s only (requests 250 to 999), then the next request (at 1,200 s) counts those from second 301 on (251–999).
    for (let i = 0; i < 1000; i++) await limiter.hit('AKLIMIT3', 10_000_000, T0 + i * 1200);
    const row = await opened.db.selectFrom('rate_limit_windows').select(['seconds', 'counts']).where('access_key', '=', 'AKLIMIT3').executeTakeFirstOrThrow();
    expect(row.seconds).toHaveLength(750);
    expect(row.counts.every((c) => c === 1)).toBe(true);
    const last = await limiter.hit('AKLIMIT3', 10_000_000, T0 + 1_200_000);
    expect(10_000_000 - last.remaining).toBe(750);
  });
});
