/**
 * Committing a session to an image (CONTRACT §7.2, §5.6): a background task (§10.2) copies the main kernel's
 * /home/work into <dataDir>/images/<id>/ and registers a new image with the base image's runtime, resources and
 * service ports whose snapshot directory is that copy, so a session started from it finds the same files.
 * While it runs, the kernel's commit_status is `ongoing`; otherwise the kernel is `ready` for a commit. A session
 * of a container image is also committed on its Docker engine (`docker commit` with the labels): the new image is
 * the engine's, and its /home/work travels as the snapshot directory.
 */
import { randomUUID } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { App } from '../app';
import { json } from '../db';
import type { Kernel, Session } from '../db/schema';
import { badRequest, notFound } from '../http/problem';
import { startBackgroundTask } from '../bgtasks/tasks';
import { sessionScratch } from '../sessions/files/scratch';
import { snapshotScratch } from './snapshot';
import { isEngineImage, recordEngineImage } from '../images/engine-images';
import { DockerAgent } from '../agents/docker/docker-agent';

/** An image tag, as registries allow it. */
const TAG_RULE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
/** Runtime state of the kernel runner (app logs, the bootstrap script): each session writes its own. */
const NOT_COMMITTED = new Set(['.berth']);
/** Progress events at most this often (the last one always goes out). */
const PROGRESS_INTERVAL_MS = 200;

export interface CommitAnswer {
  bgtask_id: string;
  kernel: string;
  path: string;
}

/** `berth/python:3.11` → `python`; `alice/python:snap` → `python`. */
export function shortImageName(name: string): string {
  const last = name.split('/').pop() ?? name;
  return last.split(':')[0] || 'image';
}

function nameSegment(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '') || 'user';
}

function timestampTag(now = new Date()): string {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

async function imageNameTaken(app: App, name: string): Promise<boolean> {
  const [image, alias] = await Promise.all([
    app.db.selectFrom('images').select('id').where('name', '=', name).executeTakeFirst(),
    app.db.selectFrom('image_aliases').select('alias').where('alias', '=', name).executeTakeFirst(),
  ]);
  return Boolean(image || alias);
}

export async function startCommit(app: App, session: Session, filename?: string | null): Promise<CommitAnswer> {
  if (filename && !TAG_RULE.test(filename)) {
    throw badRequest('filename: letters, digits, _, . and - only (at most 128, not starting with . or -)', { filename: 'invalid image tag' });
  }
  const scratch = await sessionScratch(app, session);
  const base = await app.db.selectFrom('images').selectAll().where('id', '=', session.image_id).executeTakeFirstOrThrow();
  const owner = await app.db.selectFrom('users').select('username').where('uuid', '=', session.user_uuid).executeTakeFirstOrThrow();
  const repository = `${nameSegment(owner.username)}/${shortImageName(base.name)}`;
  let name = `${repository}:${filename ?? timestampTag()}`;
  if (await imageNameTaken(app, name)) {
    if (filename) throw badRequest(`filename: the image ${name} already exists`, { filename: 'image exists' });
    for (let n = 2; await imageNameTaken(app, name); n++) name = `${repository}:${timestampTag()}-${n}`;
  }

  const claimed = await app.db
    .updateTable('kernels')
    .set({ commit_status: 'ongoing' })
    .where('id', '=', scratch.kernel.id)
    .where((eb) => eb.or([eb('commit_status', 'is', null), eb('commit_status', '!=', 'ongoing')]))
    .returning('id')
    .executeTakeFirst();
  if (!claimed) throw badRequest('A commit of this session is already in progress.', { session: 'commit ongoing' });

  const imageId = randomUUID();
  const target = path.join(app.settings.dataDir, 'images', imageId);
  const partial = `${target}.partial`;
  const tag = name.slice(name.lastIndexOf(':') + 1);
  let taskId: string;
  try {
    taskId = await startBackgroundTask(app, { accessKey: session.access_key, name: 'session_commit' }, async (progress) => {
      try {
        let last = 0;
        const result = await snapshotScratch(scratch.root, partial, NOT_COMMITTED, (copied, total) => {
          const now = Date.now();
          if (copied === 0 || copied === total || now - last >= PROGRESS_INTERVAL_MS) {
            last = now;
            progress(copied, total, `copied ${copied} of ${total} files`);
          }
        });
        renameSync(partial, target);
        const labels = { ...base.labels, 'ai.backend.base-image': base.name, 'ai.backend.committed-from': session.id };
        if (isEngineImage(base)) {
          // A container image: `docker commit` on its engine, then the catalog row with the /home/work snapshot.
          await dockerOf(app, scratch.kernel).commitKernel(scratch.kernel.id, name, labels, target);
          const id = await recordEngineImage(app, dockerOf(app, scratch.kernel).docker, name, { owner: session.access_key });
          await app.db.updateTable('images').set({ snapshot_dir: target, size_bytes: result.bytes }).where('id', '=', id).execute();
          return name;
        }
        await app.db
          .insertInto('images')
          .values({
            id: imageId,
            name,
            registry: 'local',
            architecture: base.architecture,
            runtime: base.runtime,
            tag,
            labels: json(labels),
            resource_limits: json(base.resource_limits),
            service_ports: json(base.service_ports),
            snapshot_dir: target,
            owner_access_key: session.access_key,
            size_bytes: result.bytes,
          })
          .execute();
        return name;
      } catch (err) {
        rmSync(partial, { recursive: true, force: true });
        rmSync(target, { recursive: true, force: true });
        throw err;
      } finally {
        await app.db.updateTable('kernels').set({ commit_status: 'ready' }).where('id', '=', scratch.kernel.id).execute();
      }
    });
  } catch (err) {
    await app.db.updateTable('kernels').set({ commit_status: 'ready' }).where('id', '=', scratch.kernel.id).execute();
    throw err;
  }
  return { bgtask_id: taskId, kernel: scratch.kernel.id, path: target };
}

function dockerOf(app: App, kernel: Pick<Kernel, 'agent_id'>): DockerAgent {
  const agent = app.agents.get(kernel.agent_id ?? '');
  if (!(agent instanceof DockerAgent)) throw new Error('the session\'s kernel is not on a Docker engine of this manager');
  return agent;
}

/** GET /session/{name}/commit: whether the main kernel is being committed. */
export async function commitStatus(app: App, session: Session): Promise<{ status: 'ready' | 'ongoing'; kernel: string }> {
  const kernel = await app.db
    .selectFrom('kernels')
    .select(['id', 'commit_status'])
    .where('session_id', '=', session.id)
    .where('cluster_role', '=', 'main')
    .executeTakeFirst();
  if (!kernel) throw notFound('No such kernel.');
  return { status: kernel.commit_status === 'ongoing' ? 'ongoing' : 'ready', kernel: kernel.id };
}
