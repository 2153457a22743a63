/**
 * Image operations that take time elsewhere and report through a background task (CONTRACT §16, §10.2):
 * rescan writes the built-in catalog again (bringing back forgotten built-ins, undoing modify_image on them) and reads
 * the Docker engines' images again (./engine-images); preload and unload concern agents'
 * local copies, which Berth's local agents do not keep (they run every image from the manager's catalog), so
 * those tasks check the references and say so.
 */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { startBackgroundTask } from '../bgtasks/tasks';
import { Problem } from '../http/problem';
import { builtinImageNames, resolveImage, seedImages } from './catalog';
import { scanEngineImages } from './engine-images';
import { dockerAgents, dockerEngines } from '../agents/docker/register';
import { engineCopyTask } from './engine-copies';

export async function rescanImages(app: App, caller: Principal, registry?: string | null): Promise<string> {
  const engines = dockerEngines(app);
  if (registry && registry !== 'local' && registry !== 'berth' && !engines.length) {
    throw new Problem('invalid-api-params', `Unknown registry: ${registry}. Berth's images live in the local registry.`, { registry: 'unknown registry' });
  }
  return startBackgroundTask(app, { accessKey: caller.accessKey, name: 'rescan_images' }, async (progress) => {
    const names = builtinImageNames();
    progress(0, names.length, 'rescanning the local registry');
    await app.db.updateTable('images').set({ is_active: true }).where('name', 'in', names).execute();
    await seedImages(app, { reset: true });
    progress(names.length, names.length, null);
    // The Docker engines' images (the docker backend): each tagged image with its labels.
    const onEngines = engines.length ? await scanEngineImages(app, engines, (done, total) => progress(done, total, 'reading the Docker engines\' images')) : 0;
    return `${names.length} images in the local registry${engines.length ? `, ${onEngines} on the Docker engines` : ''}`;
  });
}

export async function localCopyTask(app: App, caller: Principal, operation: 'preload' | 'unload', references: string[], targetAgents: string[]): Promise<string> {
  // Docker engines keep real copies: pull or remove them there.
  const engines = dockerAgents(app).filter((agent) => targetAgents.includes(agent.id));
  if (engines.length && engines.length === targetAgents.length) return engineCopyTask(app, caller, operation, references, engines.map((a) => a.docker));
  if (engines.length) throw new Problem('invalid-api-params', 'target_agents: name Docker engines or local agents, not both', { target_agents: 'mixed backends' });
  const images = await Promise.all(references.map((reference) => resolveImage(app, reference)));
  const known = new Set([...app.agents.keys()]);
  const unknown = targetAgents.filter((agent) => !known.has(agent));
  if (unknown.length) throw new Problem('invalid-api-params', `Unknown agents: ${unknown.join(', ')}`, { target_agents: 'unknown agent' });
  return startBackgroundTask(app, { accessKey: caller.accessKey, name: `${operation}_image` }, async (progress) => {
    progress(images.length, images.length, null);
    return `${images.map((image) => image.name).join(', ')}: local agents run images from the catalog; nothing to ${operation}`;
  });
}
