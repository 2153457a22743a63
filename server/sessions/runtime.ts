/**
 * Wires the session machinery into a running manager: the local agent, the scheduler (whose passes hand
 * sessions to the launcher), the kernel-exit handler, and reconciliation of what survived the last run.
 */
import path from 'node:path';
import type { App, Submitted } from '../app';
import type { KernelExit } from '../agents/agent';
import type { Session } from '../db/schema';
import { LocalAgent } from '../agents/local/local-agent';
import { startSlurmBackend } from '../agents/slurm/register';
import { startDockerBackend } from '../agents/docker/register';
import { BERTH_VERSION } from '../version';
import { seedImages } from '../images/catalog';
import { scanEngineImages } from '../images/engine-images';
import { SessionScheduler } from './scheduler/run';
import { launchClaimed, launchSession } from './launch';
import { handleKernelExit } from './kernel-exits';
import { reconcileSessions } from './reconcile';
import { schedulerOf } from '../manager/scheduler';
import { AgentService, agentServices } from '../agents/watcher';

export interface SessionRuntime {
  /** The scheduler while this replica leads (always on PGlite once started). */
  readonly scheduler: SessionScheduler | null;
  stop(): Promise<void>;
}

export interface RuntimeRoles {
  /** Register and heartbeat this machine's agent, start the Slurm and Docker backends. */
  agent: boolean;
  /** Compete for the scheduler's lease (cluster/leases): the leader places sessions and launches them. */
  singletons: boolean;
}

export async function startSessionRuntime(app: App, localAgentId: string, roles: RuntimeRoles = { agent: true, singletons: true }): Promise<SessionRuntime> {
  await seedImages(app);
  const runnerPath = path.join(app.settings.homeDir, 'server/agents/sandbox/kernel_runner.py');
  // Every replica drives this machine's kernels (whichever replica launched them: adopted on first use), so any
  // replica on it can serve their streams; only the `agent` role registers and heartbeats the agent.
  const agent = new LocalAgent({
    id: localAgentId,
    dataDir: app.settings.dataDir,
    runnerPath,
    kernelUid: app.settings.kernelUid,
    onWarning: (message, err) => app.log.warn({ err }, message),
  });
  app.agents.set(agent.id, agent);
  app.log.info({ agent: agent.id, limits: agent.limitsReport }, 'local agent ready');
  const onExit = (exit: KernelExit) => {
    handleKernelExit(app, exit).catch((err) => app.log.error({ err, kernelId: exit.kernelId }, 'kernel exit handling failed'));
  };
  agent.onKernelExit(onExit);
  const slurm = roles.agent && app.settings.slurm ? await startSlurmBackend(app, app.settings.slurm, runnerPath, BERTH_VERSION) : null;
  slurm?.agent.onKernelExit(onExit);
  const docker = roles.agent && app.settings.docker ? await startDockerBackend(app, app.settings.docker, runnerPath, BERTH_VERSION) : null;
  if (docker) await scanEngineImages(app, docker.liveEngines).catch((err) => app.log.warn({ err }, 'reading the Docker engines\' images failed'));
  for (const engineAgent of docker?.agents ?? []) engineAgent.onKernelExit(onExit);
  const launch = (claimed: Session[]) => {
    for (const session of claimed) launchClaimed(app, session).catch((err) => app.log.error({ err, sessionId: session.id }, 'session launch failed'));
  };
  let scheduler: SessionScheduler | null = null;
  // Operators' triggers (POST /manager/scheduler/trigger, include-agents) run real passes, on the leader.
  schedulerOf(app).register('schedule', async () => (scheduler ? launch(await scheduler.pass()) : app.cluster.signal('scheduler')));
  schedulerOf(app).register('prepare', async () => {
    const scheduled = await app.db.selectFrom('sessions').select('id').where('status', '=', 'SCHEDULED').execute();
    await Promise.all(scheduled.map((s) => launchSession(app, s.id)));
  });
  let service: AgentService | null = null;
  if (roles.agent) {
    service = new AgentService(app, agent.id);
    agentServices(app).set(agent.id, service);
    await service.start();
  }
  // A replica that is not the leader asks the leader for a pass (a session was created or ended through it). A
  // submission says which session, so the leader's pass can be a delta pass (or none, for a reserved session).
  app.triggerScheduler = (reason, submitted) =>
    scheduler ? scheduler.trigger(reason, submitted) : app.cluster.signal('scheduler', submitted ? { id: submitted.id, startsAt: submitted.startsAt?.toISOString() ?? null } : null);
  app.cluster.onSignal('scheduler', (body) => scheduler?.trigger('event', submittedFrom(body)));
  if (roles.singletons) {
    app.leases.add({
      name: 'scheduler',
      async start() {
        // What the last leader left (a crash, a restart) is settled before anything new launches: a launch it
        // started would otherwise read as one this leader's crash interrupted.
        // A takeover while other replicas serve (not a lone restart): interrupted launches start again.
        await reconcileSessions(app, { relaunchInterrupted: !(await app.cluster.alone()) });
        scheduler = new SessionScheduler(app, launch);
        scheduler.trigger();
      },
      stop() {
        scheduler?.stop();
        scheduler = null;
      },
    });
  }
  return {
    get scheduler() {
      return scheduler;
    },
    async stop() {
      scheduler?.stop();
      // With other replicas the agent may live on in one of them: leave its status to the liveness sweep.
      for (const s of agentServices(app).values()) if (s.running) await (app.cluster.shared ? s.halt() : s.stop()).catch(() => undefined);
      await slurm?.stop();
      await docker?.stop();
      for (const a of new Set(app.agents.values())) await a.close();
    },
  };
}

/** The submission a `scheduler` signal names, if it names one (anything else asks for a full pass). */
function submittedFrom(body: unknown): Submitted | undefined {
  const { id, startsAt } = (body ?? {}) as { id?: unknown; startsAt?: unknown };
  if (typeof id !== 'string') return undefined;
  const at = typeof startsAt === 'string' ? new Date(startsAt) : null;
  return { id, startsAt: at && !Number.isNaN(at.getTime()) ? at : null };
}
