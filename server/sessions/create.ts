/**
 * POST /session: validates a request completely before anything is stored (so a bad one allocates nothing),
 * reuses a live session of the same name and image, enqueues the new session as PENDING with its kernels,
 * asks the scheduler for a pass and, unless enqueueOnly, waits for the session to start (CONTRACT §7.1).
 */
import { randomUUID } from 'node:crypto';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { isSuperadmin } from '../auth/principal';
import { actingAs } from '../auth/delegation';
import { json } from '../db';
import type { Insertable } from 'kysely';
import type { Image, KernelTable, Session, SessionMount, SessionTable } from '../db/schema';
import { Problem, badRequest } from '../http/problem';
import { checkImageRunsIn, checkRegistryConfigured } from '../images/engine-images';
import { resolveSessionMounts } from '../storage/session-mounts';
import { formatAmount, parseAmount, toAmounts, type Amounts } from '../resources/slots';
import { parseDuration } from '../util/duration';
import { findSession } from './access';
import { LIVE } from './states';
import { publishSessionEvent } from './transition';
import { schedulerRecord, statusInfo, submissionVerdict } from './scheduler/reasons';
import { appsOf, compactServicePorts, preopenPorts, sessionApps, withPreopen } from '../apps/session-apps';
import { submissionLookups } from './lookups';

export interface CreateSessionInput {
  name: string;
  image: string;
  arch?: string;
  /** `system` is internal (image import): never accepted from clients, exempt from the concurrency limit. */
  type: 'interactive' | 'batch' | 'inference' | 'system';
  group: string;
  domain?: string;
  clusterSize: number;
  clusterMode: 'single-node' | 'multi-node';
  config: {
    resources?: Record<string, unknown>;
    environ?: Record<string, string>;
    mounts?: string[];
    mount_map?: Record<string, string>;
    mount_options?: Record<string, unknown>;
    scaling_group?: string;
    resource_opts?: Record<string, unknown>;
    agent_list?: string[];
    preopen_ports?: number[];
  };
  tag?: string;
  priority: number;
  enqueueOnly: boolean;
  maxWaitSeconds: number;
  startsAt?: string;
  reuseIfExists: boolean;
  startupCommand?: string;
  bootstrapScript?: string;
  dependencies?: string[];
  callbackUrl?: string;
  ownerAccessKey?: string;
  batchTimeout?: number;
  /** The role of each kernel, main first (cluster templates); by default `main` then `sub`. */
  roles?: string[];
}

export interface CreateSessionResult {
  sessionId: string;
  sessionName: string;
  status: string;
  servicePorts: Record<string, unknown>[];
  created: boolean;
  service_ports?: unknown[];
}

const MAX_WAIT_SECONDS = 3600;
const DEFAULT_SHMEM = 64 * 1024 * 1024;
const NAME_RULE = /^\w[\w.-]*\w$/;

/** `lookupsRefreshed`: the caller refreshed the submission lookups for this request already (a template's create). */
export async function createSession(app: App, caller: Principal, input: CreateSessionInput, { lookupsRefreshed = false } = {}): Promise<CreateSessionResult> {
  const owner = await actingAs(app, caller, input.ownerAccessKey);
  checkSessionName(input.name);
  await checkRegistryConfigured(app, input.image);
  if (!lookupsRefreshed) await submissionLookups(app).refresh();
  const image = await submissionLookups(app).image(app, input.image);

  let prepared: Prepared;
  try {
    prepared = await validate(app, caller, owner, input, image);
  } catch (err) {
    // A live session of this name is answered (reused or refused) whatever the rest of the request says; looked
    // up only here and on a conflicting insert, so a new name costs no query for it.
    const existing = await liveSessionNamed(app, owner.accessKey, input.name);
    if (existing) return reuseOrRefuse(app, existing, image, input.reuseIfExists);
    throw err;
  }
  const sessionId = randomUUID();
  const now = new Date();
  // Sessions that passes skip until their time or their dependencies come say why from the start.
  const unmet = prepared.dependencies.length
    ? (await app.db.selectFrom('sessions').select('status').select('result').where('id', 'in', prepared.dependencies).execute()).filter((d) => !(d.status === 'TERMINATED' && d.result === 'success')).length
    : 0;
  const verdict = submissionVerdict(prepared.startsAt, unmet, now);
  let session: Session;
  try {
    session = await insertSession(app, {
      id: sessionId,
      name: input.name,
      access_key: owner.accessKey,
      user_uuid: owner.userId,
      domain_name: owner.domainName,
      group_id: prepared.groupId,
      scaling_group_name: prepared.scalingGroup,
      session_type: input.type,
      cluster_mode: input.clusterMode,
      cluster_size: input.clusterSize,
      image_id: image.id,
      image: image.name,
      architecture: input.arch ?? image.architecture,
      tag: input.tag ?? null,
      priority: input.priority,
      status: 'PENDING',
      status_history: json({ PENDING: now.toISOString() }),
      status_data: json(verdict ? { scheduler: schedulerRecord(verdict, 0, null) } : {}),
      status_info: verdict ? statusInfo(verdict) : null,
      requested_slots: json(format(prepared.sessionSlots)),
      occupying_slots: json({}),
      environ: json(input.config.environ ?? {}),
      resource_opts: json(prepared.resourceOpts),
      mounts: json(prepared.mounts),
      agent_list: json(input.config.agent_list?.length ? input.config.agent_list : null),
      startup_command: input.startupCommand ?? null,
      bootstrap_script: input.bootstrapScript ?? null,
      callback_url: input.callbackUrl ?? null,
      starts_at: prepared.startsAt,
      batch_timeout: input.batchTimeout ?? null,
      created_at: now,
    }, kernelPlaces(input.clusterSize, input.roles).map((place) => ({
      id: randomUUID(),
      session_id: sessionId,
      cluster_role: place.role,
      cluster_idx: place.idx,
      cluster_hostname: place.hostname,
      status: 'PENDING',
      status_history: json({ PENDING: now.toISOString() }),
      status_data: json({}),
      occupied_slots: json({}),
      service_ports: json(preopenPorts(input.config.preopen_ports)),
      last_stat: json(null),
    })), prepared.dependencies);
  } catch (err) {
    // A session of this name is live (created before, or by another request in the meantime).
    const raced = await liveSessionNamed(app, owner.accessKey, input.name);
    if (raced) return reuseOrRefuse(app, raced, image, input.reuseIfExists);
    throw err;
  }

  const started = input.enqueueOnly ? null : waitForStart(app, sessionId, input.maxWaitSeconds);
  publishSessionEvent(app, session, 'session_enqueued', session.status_info ?? '', null);
  app.triggerScheduler('event', { id: sessionId, startsAt: prepared.startsAt });
  if (!started) return { sessionId, sessionName: input.name, status: 'PENDING', servicePorts: [], created: true };
  const status = await started;
  return { sessionId, sessionName: input.name, status, servicePorts: compactServicePorts(withPreopen(appsOf(image), preopenPorts(input.config.preopen_ports))), created: true };
}

/**
 * The session, its kernels and its dependencies in one statement (data-modifying CTEs; the foreign keys are
 * checked at its end): atomic without a transaction's begin and commit, one round trip. Answers the stored row.
 */
async function insertSession(app: App, session: Insertable<SessionTable>, kernels: Insertable<KernelTable>[], dependencies: string[]): Promise<Session> {
  const withKernels = app.db.with('new_kernels', (db) => db.insertInto('kernels').values(kernels));
  if (!dependencies.length) return withKernels.insertInto('sessions').values(session).returningAll().executeTakeFirstOrThrow();
  const sessionId = String(session.id);
  return withKernels
    .with('new_dependencies', (db) => db.insertInto('session_dependencies').values(dependencies.map((depends_on) => ({ session_id: sessionId, depends_on }))))
    .insertInto('sessions')
    .values(session)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Role, index within the role (from 1) and hostname (`main1`, `sub1`, `sub2`, `worker1`, …) of each kernel. */
function kernelPlaces(size: number, roles?: string[]): { role: string; idx: number; hostname: string }[] {
  const list = roles?.length === size ? roles : ['main', ...Array<string>(size - 1).fill('sub')];
  const counts = new Map<string, number>();
  return list.map((role) => {
    const idx = (counts.get(role) ?? 0) + 1;
    counts.set(role, idx);
    const label = role.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'node';
    return { role, idx, hostname: `${label}${idx}` };
  });
}

function checkSessionName(name: string): void {
  if (name.length < 4 || name.length > 64 || !NAME_RULE.test(name) || /[^\x00-\x7f]/.test(name)) {
    throw badRequest('The session name must be 4–64 ASCII letters, digits, _, . or -, starting and ending with a letter, digit or _.', { name: 'invalid session name' });
  }
}

/**
 * Every check POST /session makes, without storing anything: model services validate their sessions' request
 * with it when the service is created. Answers the owner and the resolved image.
 */
export async function checkCreateSession(app: App, caller: Principal, input: CreateSessionInput): Promise<{ owner: Principal; image: Image; groupId: string; scalingGroup: string }> {
  const owner = await actingAs(app, caller, input.ownerAccessKey);
  checkSessionName(input.name);
  await submissionLookups(app).refresh();
  const image = await submissionLookups(app).image(app, input.image);
  const prepared = await validate(app, caller, owner, input, image);
  return { owner, image, groupId: prepared.groupId, scalingGroup: prepared.scalingGroup };
}

async function liveSessionNamed(app: App, accessKey: string, name: string): Promise<Session | undefined> {
  return app.db.selectFrom('sessions').selectAll().where('access_key', '=', accessKey).where('name', '=', name).where('status', 'in', [...LIVE]).executeTakeFirst();
}

async function reuseOrRefuse(app: App, existing: Session, image: Image, reuse: boolean): Promise<CreateSessionResult> {
  if (!reuse || existing.image_id !== image.id) {
    throw new Problem('session-already-exists', `A session named "${existing.name}" already exists.`, { existingSessionId: existing.id });
  }
  const apps = await sessionApps(app, existing);
  return { sessionId: existing.id, sessionName: existing.name, status: existing.status, servicePorts: compactServicePorts(apps), created: false, service_ports: apps.map(({ argv: _, ...p }) => p) };
}

/** Resolves once the session starts or fails to, or says TIMEOUT when maxWaitSeconds passes first. */
function waitForStart(app: App, sessionId: string, maxWaitSeconds: number): Promise<string> {
  const settled = new Set(['RUNNING', 'ERROR', 'CANCELLED', 'TERMINATED', 'TERMINATING']);
  return new Promise((resolve) => {
    const seconds = maxWaitSeconds > 0 ? Math.min(maxWaitSeconds, MAX_WAIT_SECONDS) : MAX_WAIT_SECONDS;
    const timer = setTimeout(() => finish('TIMEOUT'), seconds * 1000);
    const off = app.events.onStatus(sessionId, (status) => settled.has(status) && finish(status));
    function finish(status: string) {
      clearTimeout(timer);
      off();
      resolve(status);
    }
  });
}

interface Prepared {
  groupId: string;
  scalingGroup: string;
  sessionSlots: Amounts;
  startsAt: Date | null;
  dependencies: string[];
  mounts: SessionMount[];
  resourceOpts: Record<string, unknown>;
}

async function validate(app: App, caller: Principal, owner: Principal, input: CreateSessionInput, image: Image): Promise<Prepared> {
  if (input.domain && input.domain !== owner.domainName) throw badRequest(`The owner does not belong to domain "${input.domain}".`, { domain: 'mismatch' });
  if ((input.type === 'batch' || input.type === 'system') && !input.startupCommand?.trim()) throw badRequest('A batch session needs a startupCommand.', { startupCommand: 'required for batch sessions' });
  if (input.startsAt && input.type !== 'batch') throw badRequest('starts_at is only for batch sessions.', { starts_at: 'batch only' });
  if (input.config.agent_list?.length && !isSuperadmin(caller)) throw new Problem('insufficient-privilege', 'Only superadmins may pin sessions to agents.');
  const mounts = await resolveSessionMounts(app, owner, input.config);

  const lookups = submissionLookups(app);
  const group = await lookups.project(owner.domainName, input.group);
  if (!group) throw badRequest(`No such project: ${input.group}`, { group: 'unknown project' });
  if (!isSuperadmin(owner) && !(await lookups.member(owner.userId, group.id))) throw badRequest(`The owner is not a member of project "${group.name}".`, { group: 'not a member' });

  const scalingGroup = input.config.scaling_group ?? 'default';
  if (!(await lookups.scalingGroupAllowed(scalingGroup, owner.domainName, group.id))) throw badRequest(`The scaling group "${scalingGroup}" is not available to this project.`, { scaling_group: 'not allowed' });
  checkImageRunsIn(app, image, scalingGroup);

  const maxContainers = await lookups.maxContainers(owner.keypairPolicy);
  if (maxContainers !== undefined && input.clusterSize > Math.max(1, maxContainers)) {
    throw badRequest(`A session may have at most ${maxContainers} kernels under this keypair's policy.`, { cluster_size: 'too large' });
  }

  const perKernel = await requestedSlots(app, input.config.resources ?? {}, image, scalingGroup);
  const sessionSlots: Amounts = {};
  for (const [slot, amount] of Object.entries(perKernel)) sessionSlots[slot] = amount * input.clusterSize;

  let startsAt: Date | null = null;
  if (input.startsAt) {
    const relative = parseDuration(input.startsAt);
    startsAt = relative !== null ? new Date(Date.now() + relative * 1000) : new Date(input.startsAt);
    if (Number.isNaN(startsAt.getTime())) throw badRequest('starts_at must be an ISO time or a duration such as 30m.', { starts_at: 'invalid' });
  }

  const dependencies: string[] = [];
  for (const reference of input.dependencies ?? []) {
    try {
      dependencies.push((await findSession(app, owner, reference)).id);
    } catch {
      throw badRequest(`No such session to depend on: ${reference}`, { dependencies: 'unknown session' });
    }
  }
  return { groupId: group.id, scalingGroup, sessionSlots, startsAt, dependencies, mounts, resourceOpts: resourceOptions(input.config.resource_opts ?? {}) };
}

/** resource_opts with `shmem` in bytes as a decimal string (CONTRACT §7.2), 64 MiB unless given. */
function resourceOptions(options: Record<string, unknown>): Record<string, unknown> {
  const shmem = parseAmount(options.shmem ?? DEFAULT_SHMEM);
  if (!Number.isFinite(shmem) || shmem < 0) throw badRequest('resource_opts.shmem must be a binary size such as 64m.', { 'resource_opts.shmem': 'invalid size' });
  return { ...options, shmem: formatAmount(Math.floor(shmem)) };
}

/** Slots of one kernel: the request over the image's minimum, every amount positive and known. */
async function requestedSlots(app: App, resources: Record<string, unknown>, image: Image, scalingGroup: string): Promise<Amounts> {
  const known = await submissionLookups(app).slotTypes(app, scalingGroup);
  const minimum = toAmounts(Object.fromEntries(Object.entries(image.resource_limits).map(([k, v]) => [k, v.min])));
  const slots: Amounts = { ...minimum };
  for (const [slot, raw] of Object.entries(resources)) {
    if (!(slot in known)) throw badRequest(`Unknown resource slot: ${slot}`, { [`resources.${slot}`]: 'unknown slot' });
    const amount = parseAmount(raw);
    if (!Number.isFinite(amount) || amount <= 0) throw badRequest(`Resource ${slot} must be a positive amount.`, { [`resources.${slot}`]: 'must be positive' });
    if (amount < (minimum[slot] ?? 0)) throw badRequest(`Resource ${slot} is below the image's minimum (${formatAmount(minimum[slot])}).`, { [`resources.${slot}`]: 'below the image minimum' });
    slots[slot] = amount;
  }
  return slots;
}

function format(amounts: Amounts): Record<string, string> {
  return Object.fromEntries(Object.entries(amounts).map(([k, v]) => [k, formatAmount(v)]));
}
