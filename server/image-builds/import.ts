/**
 * Image import (manager-api.md "Image import", CONTRACT §15). The local backend's images are runtime
 * definitions, so importing means: take an image Berth already has (`src`: alias, canonical name or committed
 * image; nothing is pulled from a registry), prove in a real temporary kernel that the Python runtime named by
 * `runtimePath` exists in it, and then register `target` as a new image with the requested labels, minimum
 * resources and service ports. The temporary kernel is a batch session `image-import-<rand>` owned by the caller
 * (1 CPU, 1 GiB, clamped to the machine); its log is the import's progress (GET /session/{sessionId}/logs).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { isSuperadmin } from '../auth/principal';
import { json } from '../db';
import type { Image, ServicePort } from '../db/schema';
import { Problem, badRequest } from '../http/problem';
import { int } from '../http/params';
import { createSession } from '../sessions/create';
import { terminateSession } from '../sessions/terminate';
import { formatAmount, parseAmount, toAmounts } from '../resources/slots';
import { resolveImage } from '../images/catalog';
import { isEngineImage, recordEngineImage } from '../images/engine-images';
import { commitImage, engineWith } from '../agents/docker/commit-image';
import { dockerEngines } from '../agents/docker/register';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
/** The temporary kernel (manager-api.md, Limits). */
const IMPORT_CPU = 1;
const IMPORT_MEM = GiB;
/** The check takes seconds; a hung runtime is interrupted after this. */
const IMPORT_TIMEOUT_S = 300;
/** Ports the kernel runner and Berth's own services use inside a kernel. */
const RESERVED_PORTS = new Set([2000, 2001, 2002, 2003, 2200, 7681]);

export const BASE_DISTROS = ['ubuntu', 'centos'] as const;
export const RUNTIME_TYPES = ['python'] as const;
export const PORT_PROTOCOLS = ['http', 'tcp', 'pty'] as const;

const binarySize = (field: string, minimum: number) =>
  z.union([z.string(), z.number()]).transform((value, ctx) => {
    const bytes = parseAmount(value);
    if (!Number.isFinite(bytes) || bytes < minimum) {
      ctx.addIssue({ code: 'custom', message: `${field} must be a binary size such as 1g (at least ${formatAmount(minimum)} bytes)` });
      return z.NEVER;
    }
    return Math.floor(bytes);
  });

const IMAGE_NAME = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::\d+)?(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$/;

export const importSchema = z
  .object({
    src: z.string().min(1),
    target: z.string().min(1).max(255).regex(IMAGE_NAME, 'must be an image name such as myteam/python-custom:1.0 (lower case)'),
    architecture: z.string().min(1),
    launchOptions: z.object({ scalingGroup: z.string().min(1), group: z.string().min(1) }),
    brand: z.string(),
    baseDistro: z.enum(BASE_DISTROS),
    minCPU: int().pipe(z.number().int().min(1, 'must be at least 1')),
    minMemory: binarySize('minMemory', 64 * MiB),
    preferredSharedMemory: binarySize('preferredSharedMemory', 0),
    supportedAccelerators: z.array(z.string().min(1)).optional(),
    runtimeType: z.enum(RUNTIME_TYPES),
    runtimePath: z
      .string()
      .min(2)
      .max(4096)
      .refine((p) => path.posix.isAbsolute(p) && !/[\x00-\x1f\x7f]/.test(p) && !p.split('/').includes('..'), 'must be an absolute POSIX path'),
    CPUCountEnvs: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')).optional(),
    servicePorts: z
      .array(
        z.object({
          name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'letters, digits, _ and - only'),
          protocol: z.enum(PORT_PROTOCOLS),
          ports: z.array(z.number().int().min(1).max(65535)).default([]),
        }),
      )
      .optional(),
  })
  .superRefine((body, ctx) => {
    const names = new Set<string>();
    const ports = new Set<number>();
    (body.servicePorts ?? []).forEach((port, i) => {
      if (names.has(port.name)) ctx.addIssue({ code: 'custom', path: ['servicePorts', i, 'name'], message: `duplicate service port name ${port.name}` });
      names.add(port.name);
      port.ports.forEach((n, j) => {
        if (RESERVED_PORTS.has(n)) ctx.addIssue({ code: 'custom', path: ['servicePorts', i, 'ports', j], message: `port ${n} is reserved` });
        else if (ports.has(n)) ctx.addIssue({ code: 'custom', path: ['servicePorts', i, 'ports', j], message: `port ${n} is used twice` });
        ports.add(n);
      });
    });
  });

export type ImportRequest = z.infer<typeof importSchema>;

export interface ImportAnswer {
  importTask: { sessionId: string; taskId: string };
}

const ARCH_ALIASES: Record<string, string> = { amd64: 'x86_64', x64: 'x86_64', x86_64: 'x86_64', arm64: 'aarch64', aarch64: 'aarch64' };
const canonicalArch = (arch: string) => ARCH_ALIASES[arch.toLowerCase()] ?? arch.toLowerCase();

/** Single quotes for the shell. */
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

async function sourceImage(app: App, src: string): Promise<Image> {
  try {
    return await resolveImage(app, src);
  } catch (err) {
    if (!(err instanceof Problem)) throw err;
    throw badRequest(
      `src: no image named "${src}" is known to Berth. The local backend cannot pull images from a registry; name an image alias, a canonical image name or a committed image.`,
      { src: 'unknown image' },
    );
  }
}

async function nameTaken(app: App, name: string): Promise<boolean> {
  const [image, alias] = await Promise.all([
    app.db.selectFrom('images').select('id').where('name', '=', name).executeTakeFirst(),
    app.db.selectFrom('image_aliases').select('alias').where('alias', '=', name).executeTakeFirst(),
  ]);
  return Boolean(image || alias);
}

/** The largest cpu and mem of any ALIVE agent in the scaling group (what a single kernel could get). */
async function largestAgent(app: App, scalingGroup: string): Promise<{ cpu: number; mem: number } | null> {
  const agents = await app.db.selectFrom('agents').select('available_slots').where('status', '=', 'ALIVE').where('scaling_group', '=', scalingGroup).execute();
  if (!agents.length) return null;
  let cpu = 0;
  let mem = 0;
  for (const agent of agents) {
    const slots = toAmounts(agent.available_slots);
    cpu = Math.max(cpu, slots.cpu ?? 0);
    mem = Math.max(mem, slots.mem ?? 0);
  }
  return { cpu, mem };
}

function checkScript(source: Image, request: ImportRequest): string {
  const runtime = shellQuote(request.runtimePath);
  const say = (text: string) => `echo ${shellQuote(`[image-import] ${text}`)}`;
  return [
    say(`converting ${source.name} into ${request.target} (${request.baseDistro}, ${request.runtimeType})`),
    say(`checking the runtime at ${request.runtimePath}`),
    `if [ ! -e ${runtime} ]; then ${say(`error: ${request.runtimePath} does not exist in the image`)} >&2; exit 1; fi`,
    `if [ -d ${runtime} ] || [ ! -x ${runtime} ]; then ${say(`error: ${request.runtimePath} is not an executable file`)} >&2; exit 1; fi`,
    `version=$(${runtime} -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>&1) || { ${say(`error: ${request.runtimePath} is not a Python interpreter:`)} >&2; echo "$version" >&2; exit 1; }`,
    `echo "[image-import] found Python $version"`,
    say(`runtime verified; registering ${request.target}`),
  ].join('\n');
}

/** Service ports of the new image: the requested ones, keeping how the source image starts an app of the same name. */
function servicePortsFor(source: Image, requested: ImportRequest['servicePorts']): ServicePort[] {
  if (!requested) return source.service_ports;
  return requested.map((port) => {
    const known = source.service_ports.find((p) => p.name === port.name);
    return { name: port.name, protocol: port.protocol, ports: port.ports, ...(known?.argv ? { argv: known.argv } : {}) };
  });
}

function labelsFor(source: Image, request: ImportRequest, ports: ServicePort[]): Record<string, string> {
  return {
    ...source.labels,
    'ai.backend.kernelspec': '1',
    'ai.backend.brand': request.brand,
    'ai.backend.base-distro': request.baseDistro,
    'ai.backend.runtime-type': request.runtimeType,
    'ai.backend.runtime-path': request.runtimePath,
    'ai.backend.resource.min.cpu': String(request.minCPU),
    'ai.backend.resource.min.mem': String(request.minMemory),
    'ai.backend.resource.preferred.shmem': String(request.preferredSharedMemory),
    'ai.backend.accelerators': (request.supportedAccelerators ?? []).join(','),
    'ai.backend.envs.corecount': (request.CPUCountEnvs ?? []).join(','),
    'ai.backend.service-ports': ports.map((p) => `${p.name}:${p.protocol}:${p.ports.join(',')}`).join(','),
    'ai.backend.imported-from': source.name,
  };
}

async function registerImage(app: App, caller: Principal, source: Image, request: ImportRequest): Promise<void> {
  const ports = servicePortsFor(source, request.servicePorts);
  if (isEngineImage(source)) {
    // A container image: a new image on the engine with the labels (Backend.AI's convention), then its catalog row.
    const docker = await engineWith(dockerEngines(app), source.name);
    if (!docker) throw new Error(`no Docker engine has ${source.name} any more`);
    await commitImage(docker, source.name, request.target, labelsFor(source, request, ports), null);
    await recordEngineImage(app, docker, request.target, { owner: caller.accessKey });
    return;
  }
  const lastSlash = request.target.lastIndexOf('/');
  const colon = request.target.lastIndexOf(':');
  const tag = colon > lastSlash ? request.target.slice(colon + 1) : 'latest';
  await app.db
    .insertInto('images')
    .values({
      id: randomUUID(),
      name: request.target,
      registry: 'local',
      architecture: source.architecture,
      runtime: request.runtimeType,
      tag,
      labels: json(labelsFor(source, request, ports)),
      resource_limits: json({ cpu: { min: String(request.minCPU) }, mem: { min: String(request.minMemory) } }),
      service_ports: json(ports),
      snapshot_dir: source.snapshot_dir,
      owner_access_key: caller.accessKey,
      size_bytes: source.size_bytes,
    })
    .execute();
}

/** Registers the image once the temporary kernel's check succeeded; cleans up a kernel that failed to start. */
function watchImport(app: App, caller: Principal, sessionId: string, source: Image, request: ImportRequest): void {
  let settled = false;
  const settle = async () => {
    const session = await app.db.selectFrom('sessions').select(['status', 'result']).where('id', '=', sessionId).executeTakeFirst();
    if (!session || settled) return;
    if (session.status === 'ERROR') {
      settled = true;
      off();
      app.log.warn({ sessionId, target: request.target }, 'image import kernel failed to start');
      await terminateSession(app, sessionId, 'failed-to-start');
      return;
    }
    if (session.status !== 'TERMINATED' && session.status !== 'CANCELLED') return;
    settled = true;
    off();
    if (session.result !== 'success') {
      app.log.warn({ sessionId, target: request.target, result: session.result }, 'image import check failed');
      return;
    }
    try {
      await registerImage(app, caller, source, request);
      app.log.info({ sessionId, target: request.target }, 'image imported');
    } catch (err) {
      app.log.error({ err, sessionId, target: request.target }, 'image import could not register the image');
    }
  };
  const run = () => void settle().catch((err) => app.log.error({ err, sessionId }, 'image import watch failed'));
  const off = app.events.onStatus(sessionId, run);
  run();
}

export async function importImage(app: App, caller: Principal, request: ImportRequest): Promise<ImportAnswer> {
  const source = await sourceImage(app, request.src);
  if (await nameTaken(app, request.target)) throw badRequest(`target: the image ${request.target} already exists`, { target: 'image exists' });
  if (canonicalArch(request.architecture) !== canonicalArch(source.architecture)) {
    throw badRequest(`architecture: ${source.name} is a ${source.architecture} image; the local backend cannot convert it to ${request.architecture}`, { architecture: 'mismatch' });
  }
  const capacity = await largestAgent(app, request.launchOptions.scalingGroup);
  if (!capacity) throw badRequest(`launchOptions.scalingGroup: no agent is alive in "${request.launchOptions.scalingGroup}"`, { 'launchOptions.scalingGroup': 'no agent' });
  if (request.minCPU > capacity.cpu) throw badRequest(`minCPU: no agent has ${request.minCPU} CPUs (the largest has ${capacity.cpu})`, { minCPU: 'too large' });
  if (request.minMemory > capacity.mem) throw badRequest(`minMemory: no agent has ${formatAmount(request.minMemory)} bytes of memory`, { minMemory: 'too large' });

  const minimum = toAmounts(Object.fromEntries(Object.entries(source.resource_limits).map(([slot, limit]) => [slot, limit.min])));
  const cpu = Math.max(Math.min(IMPORT_CPU, capacity.cpu), minimum.cpu ?? 0);
  const mem = Math.max(Math.min(IMPORT_MEM, capacity.mem), minimum.mem ?? 0);
  const name = `image-import-${randomBytes(4).toString('hex')}`;
  const created = await createSession(app, caller, {
    name,
    image: source.name,
    // Internal: the kernel concurrency limit does not apply to it (spec, Image import).
    type: 'system',
    group: request.launchOptions.group,
    clusterSize: 1,
    clusterMode: 'single-node',
    config: { resources: { cpu: formatAmount(cpu), mem: formatAmount(mem) }, scaling_group: request.launchOptions.scalingGroup },
    priority: 10,
    enqueueOnly: true,
    maxWaitSeconds: 0,
    reuseIfExists: false,
    startupCommand: checkScript(source, request),
    batchTimeout: IMPORT_TIMEOUT_S,
  });
  watchImport(app, caller, created.sessionId, source, request);
  const kernel = await app.db
    .selectFrom('kernels')
    .select('id')
    .where('session_id', '=', created.sessionId)
    .where('cluster_role', '=', 'main')
    .executeTakeFirstOrThrow();
  return { importTask: { sessionId: name, taskId: kernel.id } };
}

/** GET /image/import: the form a client renders for POST /image/import, with the caller's choices filled in. */
export async function importForm(app: App, caller: Principal): Promise<{ fieldGroups: unknown[] }> {
  const scalingGroups = (
    await app.db
      .selectFrom('scaling_groups as s')
      .select('s.name')
      .where('s.is_active', '=', true)
      .where((eb) => eb.exists(eb.selectFrom('sgroups_for_domains').select('domain').whereRef('scaling_group', '=', 's.name').where('domain', '=', caller.domainName)))
      .orderBy('s.name')
      .execute()
  ).map((row) => row.name);
  let groups = app.db.selectFrom('groups').select('name').where('domain_name', '=', caller.domainName).where('is_active', '=', true);
  if (!isSuperadmin(caller)) {
    groups = groups.where((eb) => eb.exists(eb.selectFrom('association_groups_users').select('user_id').whereRef('group_id', '=', 'groups.id').where('user_id', '=', caller.userId)));
  }
  const groupNames = (await groups.orderBy('name').execute()).map((row) => row.name);
  const pick = (choices: string[], preferred: string) => (choices.includes(preferred) ? preferred : (choices[0] ?? preferred));
  return {
    fieldGroups: [
      {
        name: 'Import options',
        fields: [
          { name: 'src', type: 'string', label: 'Source image', required: true, placeholder: 'python', help: 'An image Berth already has: an alias, a canonical name or a committed image. The local backend does not pull from registries.' },
          { name: 'target', type: 'string', label: 'Target image', required: true, placeholder: 'myteam/python-custom:1.0' },
          { name: 'architecture', type: 'choice', label: 'Architecture', required: true, choices: ['x86_64', 'aarch64'], default: 'x86_64' },
          {
            name: 'launchOptions',
            type: 'group',
            label: 'Launch options',
            required: true,
            fields: [
              { name: 'scalingGroup', type: 'choice', label: 'Resource group', required: true, choices: scalingGroups, default: pick(scalingGroups, 'default') },
              { name: 'group', type: 'choice', label: 'Project', required: true, choices: groupNames, default: pick(groupNames, 'default') },
            ],
          },
        ],
      },
      {
        name: 'Labels',
        fields: [
          { name: 'brand', type: 'string', label: 'Display name', required: true, placeholder: 'Python' },
          { name: 'baseDistro', type: 'choice', label: 'Base distribution', required: true, choices: [...BASE_DISTROS], default: 'ubuntu' },
          { name: 'minCPU', type: 'number', label: 'Minimum CPU cores', required: true, min: 1, default: 1 },
          { name: 'minMemory', type: 'binarysize', label: 'Minimum memory', required: true, min: '64m', default: '1g' },
          { name: 'preferredSharedMemory', type: 'binarysize', label: 'Preferred shared memory', required: true, min: '0', default: '64m' },
          { name: 'supportedAccelerators', type: 'multichoice', label: 'Supported accelerators', required: false, choices: ['cuda'], default: [] },
          { name: 'runtimeType', type: 'choice', label: 'Runtime type', required: true, choices: [...RUNTIME_TYPES], default: 'python' },
          { name: 'runtimePath', type: 'string', label: 'Runtime path', required: true, default: '/usr/bin/python3', help: 'An absolute path inside the image; checked in a temporary kernel.' },
          { name: 'CPUCountEnvs', type: 'list', label: 'Environment variables set to the CPU count', required: false, default: ['NPROC', 'OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS'] },
        ],
      },
      {
        name: 'Service ports',
        fields: [
          {
            name: 'servicePorts',
            type: 'multi-group',
            label: 'Service ports',
            required: false,
            fields: [
              { name: 'name', type: 'string', label: 'Name', required: true },
              { name: 'protocol', type: 'choice', label: 'Protocol', required: true, choices: [...PORT_PROTOCOLS], default: 'http' },
              { name: 'ports', type: 'list', label: 'Ports', required: false, item: 'integer' },
            ],
          },
        ],
      },
    ],
  };
}
