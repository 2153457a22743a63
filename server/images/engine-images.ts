/**
 * Images that live on Docker engines (the docker backend): the engines' tagged images are written to the catalog
 * with their registry (`docker.io` for a name without one) and Backend.AI's labels read by ./image-labels; built-in,
 * imported and committed host images keep the registry `local`. A rescan writes them again and retires those no
 * engine has any more. A reference naming a registry the operator did not configure is refused.
 */
import { randomUUID } from 'node:crypto';
import type Docker from 'dockerode';
import type { App } from '../app';
import { json } from '../db';
import type { Image } from '../db/schema';
import { Problem } from '../http/problem';
import { hasExplicitRegistry, imageRuntime, registryOf } from './image-labels';

const SERVICE_DEFS = '/etc/backend.ai/service-defs';

export function isEngineImage(image: Pick<Image, 'registry'>): boolean {
  return image.registry !== 'local';
}

/** Container images run on the docker scaling group only, and it runs nothing else (the host's runtimes are not images). */
export function checkImageRunsIn(app: App, image: Image, scalingGroup: string): void {
  const dockerGroup = app.settings.docker?.scalingGroup;
  if (scalingGroup === dockerGroup && !isEngineImage(image)) {
    throw new Problem('invalid-api-params', `The scaling group ${scalingGroup} runs container images; ${image.name} is a runtime of the host. Pick an image of the Docker engines.`, { image: 'not a container image' });
  }
  if (isEngineImage(image) && scalingGroup !== dockerGroup) {
    throw new Problem('invalid-api-params', `${image.name} is a container image: run it in the scaling group ${dockerGroup ?? '(none: BERTH_DOCKER_HOSTS is unset)'}.`, { scaling_group: 'not a container scaling group' });
  }
}

/** A reference whose registry is named must be one of /config/docker-registries (the container_registries rows). */
export async function checkRegistryConfigured(app: App, reference: string): Promise<void> {
  if (!hasExplicitRegistry(reference)) return;
  const registry = registryOf(reference);
  const known = await app.db.selectFrom('container_registries').select('id').where('registry_name', '=', registry).executeTakeFirst();
  if (!known) {
    throw new Problem('invalid-api-params', `The registry ${registry} is not configured (see /config/docker-registries).`, { image: 'unconfigured registry' });
  }
}

function architectureOf(engineArch: string | undefined): string {
  if (engineArch === 'amd64' || !engineArch) return 'x86_64';
  if (engineArch === 'arm64') return 'aarch64';
  return engineArch;
}

/** Writes one engine image (by tag) into the catalog; returns the row's id. */
export async function recordEngineImage(app: App, docker: Docker, reference: string, extra: { owner?: string | null } = {}): Promise<string> {
  const info = await docker.getImage(reference).inspect();
  const labels = (info.Config?.Labels ?? {}) as Record<string, string>;
  const described = imageRuntime(labels, await readServiceDefs(docker, reference, labels));
  const colon = reference.lastIndexOf(':');
  const tag = colon > reference.lastIndexOf('/') ? reference.slice(colon + 1) : 'latest';
  const values = {
    registry: registryOf(reference),
    architecture: architectureOf(info.Architecture),
    runtime: described.runtime,
    tag,
    labels: json(labels),
    resource_limits: json(described.resourceLimits),
    service_ports: json(described.servicePorts),
    size_bytes: info.Size ?? 0,
    is_active: true,
  };
  const existing = await app.db.selectFrom('images').select('id').where('name', '=', reference).executeTakeFirst();
  if (existing) {
    await app.db.updateTable('images').set(values).where('id', '=', existing.id).execute();
    return existing.id;
  }
  const id = randomUUID();
  await app.db.insertInto('images').values({ id, name: reference, ...values, owner_access_key: extra.owner ?? null }).execute();
  return id;
}

/** Every tagged image of the engines into the catalog; engine images no engine has any more leave it. */
export async function scanEngineImages(app: App, engines: Docker[], progress?: (done: number, total: number) => void): Promise<number> {
  const seen = new Set<string>();
  const tagged: { docker: Docker; reference: string }[] = [];
  for (const docker of engines) {
    for (const image of await docker.listImages()) {
      for (const reference of image.RepoTags ?? []) {
        if (reference === '<none>:<none>' || seen.has(reference)) continue;
        seen.add(reference);
        tagged.push({ docker, reference });
      }
    }
  }
  let done = 0;
  for (const { docker, reference } of tagged) {
    await recordEngineImage(app, docker, reference);
    progress?.(++done, tagged.length);
  }
  let gone = app.db.updateTable('images').set({ is_active: false }).where('registry', '!=', 'local').where('is_active', '=', true);
  if (seen.size) gone = gone.where('name', 'not in', [...seen]);
  await gone.execute();
  return tagged.length;
}

/**
 * The image's /etc/backend.ai/service-defs/<name>.json for each app its labels declare, read from a container that
 * is created and never started (nothing of the image runs).
 */
async function readServiceDefs(docker: Docker, reference: string, labels: Record<string, string>): Promise<Record<string, unknown>> {
  if (!labels['ai.backend.service-ports']) return {};
  const container = await docker.createContainer({ Image: reference, Entrypoint: ['/nonexistent'], Cmd: [], NetworkDisabled: true, Labels: { 'berth.scan': '1' } });
  try {
    const stream = await container.getArchive({ path: SERVICE_DEFS });
    const chunks: Buffer[] = [];
    for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
    const defs: Record<string, unknown> = {};
    for (const entry of readTar(Buffer.concat(chunks))) {
      const name = /service-defs\/([A-Za-z0-9_-]+)\.json$/.exec(entry.name)?.[1];
      if (!name) continue;
      try {
        defs[name] = JSON.parse(entry.data.toString('utf8'));
      } catch {
        /* a malformed definition: the app is listed without a command */
      }
    }
    return defs;
  } catch {
    return {};
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

/** The regular files of a tar archive (ustar; enough for what the Engine API's archive endpoint sends). */
export function readTar(buffer: Buffer): { name: string; data: Buffer }[] {
  const files: { name: string; data: Buffer }[] = [];
  let offset = 0;
  while (offset + 512 <= buffer.length) {
    const header = buffer.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, length: number) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1);
    const prefix = field(345, 155);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    if (type === '0' || type === '') files.push({ name, data: buffer.subarray(offset + 512, offset + 512 + size) });
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}
