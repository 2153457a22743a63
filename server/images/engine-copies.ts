/**
 * preload_image / unload_image on Docker engines (GraphQL, a background task): preload pulls each reference onto the
 * target engines from its registry, which must be configured (/config/docker-registries; its credentials are sent
 * to the registry), and writes it to the catalog; unload removes the engine's copy.
 */
import type Docker from 'dockerode';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { startBackgroundTask } from '../bgtasks/tasks';
import { checkRegistryConfigured, recordEngineImage } from './engine-images';
import { hasExplicitRegistry, registryOf } from './image-labels';

export async function engineCopyTask(app: App, caller: Principal, operation: 'preload' | 'unload', references: string[], engines: Docker[]): Promise<string> {
  for (const reference of references) await checkRegistryConfigured(app, reference);
  return startBackgroundTask(app, { accessKey: caller.accessKey, name: `${operation}_image` }, async (progress) => {
    let done = 0;
    const total = references.length * engines.length;
    for (const reference of references) {
      for (const docker of engines) {
        if (operation === 'preload') {
          await pull(app, docker, reference);
          await recordEngineImage(app, docker, reference);
        } else {
          await docker.getImage(reference).remove().catch((err: { statusCode?: number }) => {
            if (err.statusCode !== 404) throw err;
          });
        }
        progress(++done, total, `${operation === 'preload' ? 'pulled' : 'removed'} ${reference}`);
      }
    }
    return `${references.join(', ')}: ${operation}ed on ${engines.length} Docker engine(s)`;
  });
}

async function pull(app: App, docker: Docker, reference: string): Promise<void> {
  const registry = hasExplicitRegistry(reference) ? registryOf(reference) : null;
  const credentials = registry
    ? await app.db.selectFrom('container_registries').select(['username', 'password']).where('registry_name', '=', registry).executeTakeFirst()
    : undefined;
  const authconfig = credentials?.username ? { username: credentials.username, password: credentials.password ?? '', serveraddress: registry! } : undefined;
  const stream = await docker.pull(reference, authconfig ? { authconfig } : {});
  await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())));
}
