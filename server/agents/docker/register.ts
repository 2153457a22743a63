/**
 * Starts the Docker backend when BERTH_DOCKER_HOSTS is set: one DockerAgent per engine, each an agents row in the
 * docker scaling group (created if missing, public) with the engine's CPUs and memory as slots, ALIVE while the
 * engine answers and LOST otherwise (checked every few seconds), and the engines' images in the catalog.
 */
import type Docker from 'dockerode';
import type { App } from '../../app';
import type { DockerSettings } from '../../config/env';
import { json } from '../../db';
import { ensureScalingGroup } from '../../resources/ensure-scaling-group';
import { DockerAgent } from './docker-agent';
import { connectEngine, type DockerEngine } from './engine';
import { openExecChannel, registerExecEngine } from './exec-channel';
import { registerTransport } from '../channel/connect';

export const HEARTBEAT_MS = 3_000;

export interface DockerBackend {
  agents: DockerAgent[];
  /** The engines that answered when the backend started (the caller reads their images into the catalog). */
  liveEngines: Docker[];
  stop(): Promise<void>;
}

const backends = new WeakMap<App, DockerBackend>();

/** The engines this manager drives (none without BERTH_DOCKER_HOSTS). */
export function dockerEngines(app: App): Docker[] {
  return backends.get(app)?.agents.map((a) => a.docker) ?? [];
}

export function dockerAgents(app: App): DockerAgent[] {
  return backends.get(app)?.agents ?? [];
}

export async function startDockerBackend(app: App, settings: DockerSettings, runnerPath: string, version: string): Promise<DockerBackend> {
  await ensureScalingGroup(app, settings.scalingGroup, 'Sessions run in containers on Docker engines');
  const engines = await Promise.all(settings.hosts.map((url) => connectEngine(url, settings.tlsDir)));
  // Kernels on remote engines are reached by exec through the engine (their endpoints name it by url).
  registerTransport('docker-exec', openExecChannel);
  for (const engine of engines) if (!engine.local) registerExecEngine(engine.url, engine.docker);
  const agents = engines.map(
    (engine) => new DockerAgent({ engine, dataDir: app.settings.dataDir, runnerPath, kernelUid: app.settings.kernelUid, log: app.log }),
  );
  for (const agent of agents) app.agents.set(agent.id, agent);
  const status = new Map<string, string>();
  const beat = async () => {
    let changed = false;
    for (const engine of engines) {
      const now = await heartbeat(app, engine, settings, version);
      if (status.get(engine.agentId) !== now) changed = true;
      status.set(engine.agentId, now);
    }
    // Capacity came or went: pending sessions may now fit.
    if (changed) app.triggerScheduler();
  };
  await beat();
  let beating: Promise<void> | null = null;
  const timer = setInterval(() => {
    beating ??= beat().finally(() => (beating = null));
  }, HEARTBEAT_MS);
  timer.unref();
  app.log.info({ engines: engines.map((e) => e.url), alive: [...status].filter(([, s]) => s === 'ALIVE').map(([id]) => id), scalingGroup: settings.scalingGroup }, 'docker backend ready');
  const backend: DockerBackend = {
    agents,
    liveEngines: agents.filter((a) => status.get(a.id) === 'ALIVE').map((a) => a.docker),
    async stop() {
      clearInterval(timer);
      await beating;
      for (const agent of agents) await agent.close();
      backends.delete(app);
    },
  };
  backends.set(app, backend);
  return backend;
}

/** One engine's agents row: its real CPUs and memory while it answers, LOST from the first time it does not. */
async function heartbeat(app: App, engine: DockerEngine, settings: DockerSettings, version: string): Promise<'ALIVE' | 'LOST'> {
  const { scalingGroup } = settings;
  let info: { NCPU?: number; MemTotal?: number; Architecture?: string } | null = null;
  try {
    info = await engine.probe.info();
  } catch {
    info = null;
  }
  const now = new Date();
  const status = info ? 'ALIVE' : 'LOST';
  const slots = info ? engineSlots(info, settings.gpus) : null;
  await app.db
    .insertInto('agents')
    .values({
      id: engine.agentId,
      status,
      status_changed: now,
      scaling_group: scalingGroup,
      available_slots: json(slots ?? { cpu: '0', mem: '0' }),
      occupied_slots: json({}),
      addr: engine.addr,
      version,
      architecture: info?.Architecture === 'aarch64' ? 'aarch64' : 'x86_64',
      compute_plugins: json(settings.gpus ? { cpu: {}, cuda: {} } : { cpu: {} }),
      backend: 'docker',
      ...(info ? { last_heartbeat: now } : {}),
      lost_at: info ? null : now,
    })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        status,
        status_changed: eb.case().when('agents.status', '=', status).then(eb.ref('agents.status_changed')).else(now).end(),
        lost_at: info ? null : eb.fn.coalesce('agents.lost_at', eb.val(now)),
        ...(slots ? { available_slots: json(slots), last_heartbeat: now } : {}),
        addr: engine.addr,
        scaling_group: scalingGroup,
      })),
    )
    .execute();
  return status;
}

/** An engine's slots: its CPUs and memory, and the GPUs the operator says its host has (the engine cannot tell). */
export function engineSlots(info: { NCPU?: number; MemTotal?: number }, gpus: number): Record<string, string> {
  return { cpu: String(info.NCPU ?? 1), mem: String(info.MemTotal ?? 0), ...(gpus ? { 'cuda.device': String(gpus) } : {}) };
}
