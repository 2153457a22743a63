/**
 * Wires the session machinery into a running manager: the local agent, the scheduler (whose passes hand
 * sessions to the launcher), the kernel-exit handler, and reconciliation of what survived the last run.
 */
import path from 'node:path';
import type { App } from '../app';
import type { KernelExit } from '../agents/agent';
import { LocalAgent } from '../agents/local/local-agent';
import { startSlurmBackend } from '../agents/slurm/register';
import { startDockerBackend } from '../agents/docker/register';
import { BERTH_VERSION } from '../version';
import { seedImages } from '../images/catalog';
import { scanEngineImages } from '../images/engine-images';
import { SessionScheduler } from './scheduler/run';
import { launchSession } from './launch';
import { handleKernelExit } from './kernel-exits';
import { reconcileSessions } from './reconcile';
import { schedulerOf } from '../manager/scheduler';
import { AgentService, agentServices } from '../agents/watcher';

export interface SessionRuntime {
  scheduler: SessionScheduler;
  stop(): Promise<void>;
}

export async function startSessionRuntime(app: App, localAgentId: string): Promise<SessionRuntime> {
  await seedImages(app);
  const runnerPath = path.join(app.settings.homeDir, 'server/agents/sandbox/kernel_runner.py');
  const agent = new LocalAgent({ id: localAgentId, dataDir: app.settings.dataDir, runnerPath, kernelUid: app.settings.kernelUid });
  app.agents.set(agent.id, agent);
  app.log.info({ agent: agent.id, limits: agent.limitsReport }, 'local agent ready');
  const onExit = (exit: KernelExit) => {
    handleKernelExit(app, exit).catch((err) => app.log.error({ err, kernelId: exit.kernelId }, 'kernel exit handling failed'));
  };
  agent.onKernelExit(onExit);
  const slurm = app.settings.slurm ? await startSlurmBackend(app, app.settings.slurm, runnerPath, BERTH_VERSION) : null;
  slurm?.agent.onKernelExit(onExit);
  const docker = app.settings.docker ? await startDockerBackend(app, app.settings.docker, runnerPath, BERTH_VERSION) : null;
  if (docker) await scanEngineImages(app, docker.liveEngines).catch((err) => app.log.warn({ err }, 'reading the Docker engines\' images failed'));
  for (const engineAgent of docker?.agents ?? []) engineAgent.onKernelExit(onExit);
  const scheduler = new SessionScheduler(app, (ids) => {
    for (const id of ids) launchSession(app, id).catch((err) => app.log.error({ err, sessionId: id }, 'session launch failed'));
  });
  // Operators' triggers (POST /manager/scheduler/trigger, include-agents) run real passes.
  schedulerOf(app).register('schedule', async () => {
    const ids = await scheduler.pass();
    for (const id of ids) launchSession(app, id).catch((err) => app.log.error({ err, sessionId: id }, 'session launch failed'));
  });
  schedulerOf(app).register('prepare', async () => {
    const scheduled = await app.db.selectFrom('sessions').select('id').where('status', '=', 'SCHEDULED').execute();
    await Promise.all(scheduled.map((s) => launchSession(app, s.id)));
  });
  const service = new AgentService(app, agent.id);
  agentServices(app).set(agent.id, service);
  await service.start();
  // What survived the last run is settled before anything new launches: a launch this manager started would read
  // as one its crash interrupted.
  await reconcileSessions(app);
  app.triggerScheduler = (reason) => scheduler.trigger(reason);
  scheduler.trigger();
  return {
    scheduler,
    async stop() {
      scheduler.stop();
      for (const s of agentServices(app).values()) if (s.running) await s.stop().catch(() => undefined);
      await slurm?.stop();
      await docker?.stop();
      for (const a of new Set(app.agents.values())) await a.close();
    },
  };
}
