/**
 * POST /image/load (superadmin): loads a `docker save` archive onto the Docker engines, for sites without a
 * registry. The archive is a file in a virtual folder (uploaded there resumably with tus, so a multi-gigabyte image
 * survives a broken connection), read through the folder's path-safety module with the caller's own access to it.
 * Each engine gets the archive streamed from the file (never held in memory) in a background task; the images it
 * names are then in the catalog, launchable at once.
 */
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { z } from 'zod';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { startBackgroundTask } from '../bgtasks/tasks';
import { badRequest } from '../http/problem';
import { dockerAgents } from '../agents/docker/register';
import { folderFor } from '../storage/access';
import { openFolderFile } from '../host-path/folder';
import { folderRootPath } from '../storage/usage';
import { recordEngineImage } from './engine-images';

export const loadSchema = z.object({
  /** The virtual folder holding the archive (name or id). */
  folder: z.string().min(1).max(128),
  /** The archive's path inside the folder. */
  path: z.string().min(1).max(4096),
  /** Docker agents to load onto (default: every live engine). */
  agents: z.array(z.string().min(1).max(256)).max(100).optional(),
});

export type LoadInput = z.infer<typeof loadSchema>;

export async function loadImageArchive(app: App, caller: Principal, input: LoadInput): Promise<{ task_id: string }> {
  const engines = targetEngines(app, input.agents);
  const access = await folderFor(app, caller, input.folder, 'ro', 'readable');
  const file = await openArchive(app, access.folder, input.path);
  const taskId = await startBackgroundTask(app, { accessKey: caller.accessKey, name: 'load_image' }, async (progress) => {
    try {
      const loaded = new Set<string>();
      for (const [index, engine] of engines.entries()) {
        progress(index, engines.length, `loading ${input.path} onto ${engine.id}`);
        const references = await loadOnto(engine.docker, file.createReadStream({ start: 0, autoClose: false }));
        for (const reference of references) {
          await recordEngineImage(app, engine.docker, reference);
          loaded.add(reference);
        }
      }
      progress(engines.length, engines.length, null);
      if (!loaded.size) throw new Error(`${input.path} names no tagged image (docker save NAME:TAG makes one that does)`);
      return `${[...loaded].join(', ')} loaded onto ${engines.map((e) => e.id).join(', ')}`;
    } finally {
      await file.close();
    }
  });
  return { task_id: taskId };
}

function targetEngines(app: App, wanted: string[] | undefined) {
  const engines = dockerAgents(app);
  if (!engines.length) throw badRequest('No Docker engine is configured (BERTH_DOCKER_HOSTS): there is nowhere to load an image.', { agents: 'no Docker engine' });
  if (!wanted?.length) return engines;
  const unknown = wanted.filter((id) => !engines.some((e) => e.id === id));
  if (unknown.length) throw badRequest(`Not Docker agents of this manager: ${unknown.join(', ')}`, { agents: 'unknown Docker agent' });
  return engines.filter((e) => wanted.includes(e.id));
}

/** The archive, opened without following links out of the folder, after a look at its first bytes. */
async function openArchive(app: App, folder: Parameters<typeof folderRootPath>[1], relative: string): Promise<FileHandle> {
  const handle = await openFolderFile(folderRootPath(app, folder), relative, 'path', (stat) => {
    if (!stat.isFile()) throw badRequest(`${relative} is not a file.`, { path: 'not a file' });
  });
  if (!handle) throw badRequest(`${relative} does not exist in the folder.`, { path: 'no such file' });
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, 512, 0);
    if (!isArchive(head.subarray(0, bytesRead))) throw badRequest(`${relative} is not an image archive (a tar or gzipped tar made by docker save).`, { path: 'not an image archive' });
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** A POSIX tar (ustar magic at 257) or gzip: what `docker load` reads. */
export function isArchive(head: Buffer): boolean {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return true;
  return head.length >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar';
}

/** Streams the archive to the engine; the references it reports loaded (`Loaded image: name:tag`). */
async function loadOnto(docker: Docker, archive: Readable): Promise<string[]> {
  const output = await docker.loadImage(archive, { quiet: true });
  const messages: { stream?: string; error?: string }[] = await new Promise((resolve, reject) =>
    docker.modem.followProgress(output, (err: Error | null, result: { stream?: string; error?: string }[]) => (err ? reject(err) : resolve(result))),
  );
  const failed = messages.find((m) => m.error);
  if (failed) throw new Error(`the engine refused the archive: ${failed.error}`);
  return loadedReferences(messages.map((m) => m.stream ?? '').join(''));
}

/** `Loaded image: a:1` lines (untagged `Loaded image ID: sha256:…` lines name nothing to launch). */
export function loadedReferences(text: string): string[] {
  return [...text.matchAll(/^Loaded image: (\S+)\s*$/gm)].map((m) => m[1]);
}
