/** The pure rules of issue 14: idle verdicts, route patterns and path parameters, audit targets, backup framing. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { idleVerdict, type SessionClock } from '../../server/culling/checks';
import { pathParameters, routePattern } from '../../server/metrics/routes';
import { targetOf } from '../../server/audit/requests';
import { frameBackup, verifyBackup, NotABackup, type BackupMeta } from '../../server/backup/format';
import type { RouteDef } from '../../server/http/route';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const clock = (over: Partial<SessionClock> = {}): SessionClock => ({
  type: 'interactive',
  status: 'RUNNING',
  createdAt: new Date(NOW - 600_000),
  runningSince: new Date(NOW - 590_000),
  lastActivity: 0,
  ...over,
});

describe('idleVerdict', () => {
  it('ends an interactive session idle past idle_timeout, counting from its last use or its start', () => {
    expect(idleVerdict(clock(), { idle_timeout: 300, max_session_lifetime: 0 }, NOW).expired).toBe('idle-timeout');
    const used = idleVerdict(clock({ lastActivity: NOW - 100_000 }), { idle_timeout: 300, max_session_lifetime: 0 }, NOW);
    expect(used).toEqual({ expired: null, checks: { idle_timeout: { threshold: 300, remaining: 200, last_activity: new Date(NOW - 100_000).toISOString() } } });
  });

  it('ends a session past max_session_lifetime first, and exempts batch from idleness and inference from both', () => {
    const limits = { idle_timeout: 60, max_session_lifetime: 500 };
    expect(idleVerdict(clock(), limits, NOW).expired).toBe('session-lifetime');
    expect(idleVerdict(clock({ type: 'batch' }), { idle_timeout: 60, max_session_lifetime: 0 }, NOW)).toEqual({ expired: null, checks: {} });
    expect(idleVerdict(clock({ type: 'batch' }), limits, NOW).expired).toBe('session-lifetime');
    expect(idleVerdict(clock({ type: 'inference' }), limits, NOW)).toEqual({ expired: null, checks: {} });
  });

  it('checks only running sessions, and 0 means never', () => {
    for (const status of ['PENDING', 'RESTARTING', 'TERMINATING', 'TERMINATED']) {
      expect(idleVerdict(clock({ status }), { idle_timeout: 1, max_session_lifetime: 1 }, NOW)).toEqual({ expired: null, checks: {} });
    }
    expect(idleVerdict(clock(), { idle_timeout: 0, max_session_lifetime: 0 }, NOW)).toEqual({ expired: null, checks: {} });
  });
});

const route = (path: string | string[], method: RouteDef['method'] = 'DELETE') => ({ method, path, privilege: 'user', status: null, summary: '', handler: () => null }) as RouteDef;

describe('route patterns and audit targets', () => {
  it('names a route by its pattern and reads its parameters back from a path', () => {
    const r = route(['/session/:name/rename', '/session/:name/_rename']);
    expect(routePattern(r)).toBe('/session/{name}/rename');
    expect(pathParameters(r, '/session/my%20sess/_rename')).toEqual({ name: 'my sess' });
    expect(pathParameters(r, '/session/%E0%A4%A/rename')).toEqual({ name: '%E0%A4%A' });
    expect(pathParameters(route('/folders/:name/files/:path.zip'), '/folders/a.b/files/x.zip')).toEqual({ name: 'a.b', path: 'x' });
  });

  it('takes ids into the target and never passwords, keys, tokens or content', () => {
    const target = targetOf(route('/folders/:name'), '/folders/data', {
      name: 'ignored-because-the-path-names-it', password: 'hunter2', secret_key: 's', token: 't', code: 'print(1)', new_name: 'renamed', key: 'x/y', value: 'v',
    });
    expect(JSON.parse(target!)).toEqual({ name: 'data', new_name: 'renamed', key: 'x/y' });
    expect(targetOf(route('/auth/signout', 'POST'), '/auth/signout', { password: 'p' })).toBeNull();
    expect(JSON.parse(targetOf(route('/x', 'POST'), '/x', { name: 'n'.repeat(2000) })!).name.length).toBeLessThan(600);
  });
});

describe('backup framing', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'berth-frame-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const meta: BackupMeta = { format: 'berth-backup', version: 1, database: 'pglite', created_at: new Date(NOW).toISOString(), berth_version: 'test', migrations: ['0001_accounts'] };

  it('frames a payload so that verification finds it whole, and refuses altered or cut copies', async () => {
    const payload = Buffer.from('payload bytes '.repeat(1000));
    const framed = await buffer(frameBackup(meta, Readable.from([payload.subarray(0, 5000), payload.subarray(5000)])));
    const file = path.join(dir, 'ok');
    writeFileSync(file, framed);
    const verified = await verifyBackup(file);
    expect(verified.meta).toEqual(meta);
    expect(framed.subarray(verified.start, verified.start + verified.length)).toEqual(payload);

    const cut = path.join(dir, 'cut');
    writeFileSync(cut, framed.subarray(0, framed.length - 10));
    await expect(verifyBackup(cut)).rejects.toBeInstanceOf(NotABackup);
    const flipped = Buffer.from(framed);
    flipped[verified.start + 10] ^= 1;
    writeFileSync(cut, flipped);
    await expect(verifyBackup(cut)).rejects.toThrow(/altered/);
    writeFileSync(cut, Buffer.concat([Buffer.from('BERTH-BACKUP 1\n{"format":"other"}\n'), payload]));
    await expect(verifyBackup(cut)).rejects.toThrow(/not a Berth backup/);
    writeFileSync(cut, '');
    await expect(verifyBackup(cut)).rejects.toThrow(/not a Berth backup/);
  });

  it('writes no end when the dump fails', async () => {
    const failed = frameBackup(meta, Readable.from([Buffer.from('partial')]), Promise.reject(new Error('pg_dump failed')));
    await expect(buffer(failed)).rejects.toThrow('pg_dump failed');
  });
});
