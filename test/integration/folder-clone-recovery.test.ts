/**
 * A clone interrupted by a manager restart (CONTRACT §9.6, §5.3, §10.2): the next start settles it. The manager is
 * stopped and started again on the same data directory and database; the state a crash mid-copy leaves (source and
 * target `cloning`, a partial tree in the target, the task unfinished) is set up from a real clone.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startBerth, type Berth } from '../../server/start';
import { BerthClient } from '../../server/client/client';
import { json } from '../../server/db';
import { terminateAllSessions } from '../../server/manager/sessions';
import { INTERRUPTED } from '../../server/storage/clone-recovery';
import { createTestDatabase, testSettings } from '../helpers/berth';
import { openEventStream } from '../helpers/sse';

const dataDir = mkdtempSync(path.join(tmpdir(), 'berth-clone-recovery-'));
const outside = mkdtempSync(path.join(tmpdir(), 'berth-outside-'));
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
let running: Berth | null = null;

async function start(): Promise<Berth> {
  if (process.env.BERTH_TEST_DB === 'postgres') database ??= await createTestDatabase();
  const settings = testSettings(dataDir, database?.url);
  // PGlite on disk (not in memory), so the second start finds what the first left.
  running = await startBerth({ settings, roles: ['manager'], inMemory: false });
  return running;
}

async function stop(): Promise<void> {
  if (!running) return;
  await terminateAllSessions(running.app);
  await running.stop();
  running = null;
}

afterAll(async () => {
  await stop();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('clone recovery after a restart', () => {
  it('fails the interrupted target (partial copy removed), restores the source, and ends the task', async () => {
    let berth = await start();
    const creds = berth.bootstrap.credentials!;
    let admin = new BerthClient({ endpoint: berth.managerUrl, accessKey: creds.accessKey, secretKey: creds.secretKey });
    const source = await admin.call('POST', '/folders', { body: { name: 'rec-src', cloneable: true } });
    const volume = path.join(dataDir, 'vfolders', 'volume1');
    mkdirSync(path.join(volume, source.id, 'dir'));
    writeFileSync(path.join(volume, source.id, 'dir', 'a.txt'), 'a');
    writeFileSync(path.join(volume, source.id, 'b.txt'), 'b');
    const cloned = await admin.call('POST', '/folders/rec-src/clone', { body: { target_name: 'rec-dst', cloneable: false } });
    const first = await openEventStream(berth.managerUrl, creds, '/events/background-task', { task_id: cloned.bgtask_id });
    expect((await first.next((e) => e.event === 'bgtask_done', 30_000)).event).toBe('bgtask_done');
    first.close();

    // What a crash in the middle of the copy leaves behind, plus a link out that the cleanup must not follow.
    const db = berth.app.db;
    const [sourceId, targetId] = [source.id, cloned.id].map((hex: string) => hex.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'));
    await db.updateTable('vfolders').set({ status: 'cloning', status_history: sql`status_history || ${json({ cloning: new Date().toISOString() })}::jsonb` }).where('id', '=', sourceId).execute();
    await db.updateTable('vfolders').set({ status: 'cloning', status_history: json({ cloning: new Date().toISOString() }) }).where('id', '=', targetId).execute();
    await db.updateTable('bgtasks').set({ status: 'started', message: null, finished_at: null }).where('id', '=', cloned.bgtask_id).execute();
    writeFileSync(path.join(outside, 'keep.txt'), 'outside');
    symlinkSync(outside, path.join(volume, cloned.id, 'dir', 'out'));
    expect(readdirSync(path.join(volume, cloned.id)).sort()).toEqual(['b.txt', 'dir']);
    admin.close();
    await stop();

    berth = await start();
    admin = new BerthClient({ endpoint: berth.managerUrl, accessKey: creds.accessKey, secretKey: creds.secretKey });
    try {
      expect((await admin.call('GET', '/folders/rec-dst')).status).toBe('error');
      expect((await admin.call('GET', '/folders/rec-src')).status).toBe('ready');
      expect(readdirSync(path.join(volume, cloned.id))).toEqual([]);
      expect(readdirSync(outside)).toEqual(['keep.txt']);
      expect(readdirSync(path.join(volume, source.id)).sort()).toEqual(['b.txt', 'dir']);
      const task = await berth.app.db.selectFrom('bgtasks').selectAll().where('id', '=', cloned.bgtask_id).executeTakeFirstOrThrow();
      expect(task).toMatchObject({ status: 'failed', message: INTERRUPTED });
      expect(task.finished_at).not.toBeNull();
      // A follower of the task gets its terminal event.
      const replay = await openEventStream(berth.managerUrl, creds, '/events/background-task', { task_id: cloned.bgtask_id });
      const ended = await replay.next((e) => e.event.startsWith('bgtask_'), 10_000);
      replay.close();
      expect(ended.event).toBe('bgtask_failed');
      expect(ended.data).toMatchObject({ task_id: cloned.bgtask_id, status: 'failed', message: INTERRUPTED });
      // The source can be cloned again.
      const again = await admin.call('POST', '/folders/rec-src/clone', { body: { target_name: 'rec-dst2', cloneable: false } });
      const stream = await openEventStream(berth.managerUrl, creds, '/events/background-task', { task_id: again.bgtask_id });
      expect((await stream.next((e) => e.event === 'bgtask_done' || e.event === 'bgtask_failed', 30_000)).event).toBe('bgtask_done');
      stream.close();
      expect(readdirSync(path.join(volume, again.id)).sort()).toEqual(['b.txt', 'dir']);
    } finally {
      admin.close();
    }
  });
});
