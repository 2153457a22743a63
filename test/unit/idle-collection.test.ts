/** server/util/idle-collection: one full collection per quiet spell after requests, none while busy or never used. */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const fullCollection = vi.hoisted(() => vi.fn());
vi.mock('../../server/util/release-startup-memory', () => ({ fullCollection }));
const { collectWhenIdle } = await import('../../server/util/idle-collection');

const QUIET_MS = 1000;
let server: EventEmitter;
let stop: () => void;

beforeEach(() => {
  vi.useFakeTimers();
  fullCollection.mockClear();
  server = new EventEmitter();
  stop = collectWhenIdle(server, QUIET_MS);
});

afterEach(() => {
  stop();
  vi.useRealTimers();
});

describe('collectWhenIdle', () => {
  it('never collects a listener that served nothing', () => {
    vi.advanceTimersByTime(10 * QUIET_MS);
    expect(fullCollection).not.toHaveBeenCalled();
  });

  it('collects once after a whole quiet interval following requests', () => {
    server.emit('request');
    server.emit('upgrade');
    vi.advanceTimersByTime(QUIET_MS);
    expect(fullCollection).not.toHaveBeenCalled();
    vi.advanceTimersByTime(QUIET_MS);
    expect(fullCollection).toHaveBeenCalledTimes(1);
    expect(fullCollection).toHaveBeenCalledWith({ compact: true });
    vi.advanceTimersByTime(10 * QUIET_MS);
    expect(fullCollection).toHaveBeenCalledTimes(1);
  });

  it('waits while requests keep coming', () => {
    for (let i = 0; i < 5; i++) {
      server.emit('request');
      vi.advanceTimersByTime(QUIET_MS);
    }
    expect(fullCollection).not.toHaveBeenCalled();
    vi.advanceTimersByTime(QUIET_MS);
    expect(fullCollection).toHaveBeenCalledTimes(1);
  });

  it('collects again after the next burst', () => {
    server.emit('request');
    vi.advanceTimersByTime(2 * QUIET_MS);
    server.emit('request');
    vi.advanceTimersByTime(2 * QUIET_MS);
    expect(fullCollection).toHaveBeenCalledTimes(2);
  });

  it('stops watching when told to', () => {
    stop();
    server.emit('request');
    vi.advanceTimersByTime(5 * QUIET_MS);
    expect(fullCollection).not.toHaveBeenCalled();
    expect(server.listenerCount('request')).toBe(0);
  });
});
