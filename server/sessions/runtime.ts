/**
 * Wires the session machinery into a running manager: the local agent, the scheduler (whose passes hand
 * sessions to the launcher), the kernel-exit handler, and reconciliation of what survived the last run.
 */
import path from 'node:path';
import type { App } from '../app';
import { LocalAgent } from '../agents/local/local-agent';
import { seedImages } from '../images/catalog';
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
  const agent = new LocalAgent({
    id: localAgentId,
    dataDir: app.settings.dataDir,
    runnerPath: path.join(app.settings.homeDir, 'server/agents/local/kernel_runner.py'),
    kernelUid: app.settings.kernelUid,
  });
  app.agents.set(agent.id, agent);
  app.log.info({ agent: agent.id, limits: agent.limitsReport }, 'local agent ready');
  agent.onKernelExit((exit) => {
    handleKernelExit(app, exit).catch((err) => app.log.error({ err, kernelId: exit.kernelId }, 'kernel exit handling failed'));
  });
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
  app.triggerScheduler = () => scheduler.trigger();
  scheduler.trigger();
  return {
    scheduler,
    async stop() {
      scheduler.stop();
      for (const s of agentServices(app).values()) if (s.running) await s.stop().catch(() => undefined);
      for (const a of app.agents.values()) await a.close();
    },
  };
}
