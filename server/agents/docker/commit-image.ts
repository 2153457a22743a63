/**
 * Makes an image on an engine from another one: a container of `base` that is created and never started (nothing of
 * the image runs), optionally given `homeDir` as its /home/work, committed as `reference` with the base image's own
 * configuration plus `labels` (the Engine API takes the configuration as the commit's body). Commit and image import
 * of the docker backend both make their images this way.
 */
import { spawn } from 'node:child_process';
import type Docker from 'dockerode';
import { LABEL_MANAGED } from './container-spec';

export async function commitImage(docker: Docker, base: string, reference: string, labels: Record<string, string>, homeDir: string | null): Promise<void> {
  const colon = reference.lastIndexOf(':');
  const image = await docker.getImage(base).inspect();
  // An image without any command (a `docker import`) still needs one for a container to be created: sh.
  const command = image.Config?.Entrypoint?.length || image.Config?.Cmd?.length ? {} : { Cmd: ['/bin/sh'] };
  const helper = await docker.createContainer({ Image: image.Id, ...command, NetworkDisabled: true, Labels: { [LABEL_MANAGED]: 'commit' } });
  try {
    if (homeDir) await helper.putArchive(homeArchive(homeDir), { path: '/' });
    const config = { ...image.Config, Labels: { ...(image.Config?.Labels ?? {}), ...labels } };
    await new Promise<void>((resolve, reject) =>
      docker.modem.dial(
        {
          path: '/commit?',
          method: 'POST',
          options: { _query: { container: helper.id, repo: reference.slice(0, colon), tag: reference.slice(colon + 1) }, _body: config },
          statusCodes: { 200: true, 201: true, 404: 'no such container', 500: 'server error' },
        },
        (err: unknown) => (err ? reject(err) : resolve()),
      ),
    );
  } finally {
    await helper.remove({ force: true }).catch(() => undefined);
  }
}

/** A tar stream of `dir` as home/work/… (GNU tar, argv only). */
function homeArchive(dir: string): NodeJS.ReadableStream {
  const tar = spawn('tar', ['-C', dir, '-cf', '-', '--transform', 's,^\\.,home/work,', '.'], { stdio: ['ignore', 'pipe', 'ignore'] });
  return tar.stdout;
}

/** The first engine that has `reference`. */
export async function engineWith(engines: Docker[], reference: string): Promise<Docker | null> {
  for (const docker of engines) {
    if (await docker.getImage(reference).inspect().then(() => true, () => false)) return docker;
  }
  return null;
}
