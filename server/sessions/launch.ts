/**
 * Starts a scheduled session: its kernels are handed to their backend together (a cluster backend submits them
 * as one job). When the backend says where they run (at once locally; when the job starts on a Slurm cluster),
 * the session becomes PREPARING and the kernels move to those agents; when every runner answers, RUNNING. A
 * kernel that fails to start takes the session to ERROR with the backend's reason; batch sessions then run their
 * startup command (./batch).
 */
import type { App } from '../app';
import type { Agent, KernelInfo } from '../agents/agent';
import type { Kernel, Session } from '../db/schema';
import { json } from '../db';
import { buildKernelSpecs } from './kernel-spec';
import { publishKernelEvent, transitionKernel, transitionSession } from './transition';
import { moveKernelToAgent, releaseKernelSlots } from './release';
import { runBatch } from './batch';

/**
 * `resume`: a restarted manager (or a new scheduler leader) takes over a launch the previous one began (a job may
 * already be queued; a PREPARING session's sandboxes were ended and start again).
 */
export async function launchSession(app: App, sessionId: string, options: { resume?: boolean } = {}): Promise<void> {
  const session = await claimLaunch(app, sessionId, options.resume ?? false);
  if (session) await launchClaimed(app, session);
}

/** Starts a session whose launch the caller holds: its claim, or the scheduling pass that claimed it (./scheduler/run). */
export async function launchClaimed(app: App, session: Session): Promise<void> {
  const sessionId = session.id;
  const kernels = await app.db.selectFrom('kernels').selectAll().where('session_id', '=', sessionId).orderBy('cluster_role').orderBy('cluster_idx').execute(); // main1 before sub1 (each role counts from 1)
  try {
    const infos = await startKernels(app, session, kernels);
    for (const info of infos) await recordStartedKernel(app, info);
    // Their exits are ignored until they are RUNNING (./kernel-exits): one that died before that fails the launch.
    const dead = infos.find((info) => !app.agents.get(info.agentId)?.isAlive(info.kernelId));
    if (dead) throw new Error('the kernel exited right after starting');
  } catch (err) {
    await failLaunch(app, sessionId, err);
    return;
  }
  const running = await transitionSession(app, sessionId, 'RUNNING');
  if (!running) {
    // Destroyed while its kernels were starting: whatever started late must not outlive it.
    await destroyKernels(app, sessionId);
    return;
  }
  if (running.session_type === 'batch' || running.session_type === 'system') void runBatch(app, running);
}

/** Exactly one launch per session, across concurrent triggers and manager processes: a conditional update. */
function claimLaunch(app: App, sessionId: string, resume: boolean): Promise<Session | undefined> {
  let query = app.db
    .updateTable('sessions')
    .set({ launch_claimed_at: new Date() })
    .where('id', '=', sessionId)
    .where('status', 'in', resume ? ['SCHEDULED', 'PREPARING'] : ['SCHEDULED']);
  if (!resume) query = query.where('launch_claimed_at', 'is', null);
  return query.returningAll().executeTakeFirst();
}

/** One call per backend instance with that backend's kernels (a session's kernels share one scaling group). */
async function startKernels(app: App, session: Session, kernels: Kernel[]): Promise<KernelInfo[]> {
  const image = await app.db.selectFrom('images').selectAll().where('id', '=', session.image_id).executeTakeFirstOrThrow();
  const byAgent = new Map<Agent, Kernel[]>();
  for (const kernel of kernels) {
    const agent = kernel.agent_id ? app.agents.get(kernel.agent_id) : undefined;
    if (!agent) throw new Error(`agent ${kernel.agent_id ?? '(none)'} is not connected to this manager`);
    byAgent.set(agent, [...(byAgent.get(agent) ?? []), kernel]);
  }
  let preparing = false;
  const placedOn = new Map(kernels.map((k) => [k.id, k.agent_id]));
  const placed = async (placement: Map<string, string>) => {
    // Only a backend that picks the node itself (Slurm) moves a kernel; the launch holds the claim, so the rows read
    // above still say where the pass put each one.
    for (const [kernelId, agentId] of placement) if (placedOn.get(kernelId) !== agentId) await moveKernelToAgent(app, kernelId, agentId);
    if (!preparing) preparing = Boolean(await transitionSession(app, session.id, 'PREPARING'));
    for (const kernelId of placement.keys()) {
      const moved = await transitionKernel(app, kernelId, 'PREPARING');
      if (moved) publishKernelEvent(app, moved, 'kernel_creating', '', null);
    }
  };
  const specs = new Map((await buildKernelSpecs(app, session, kernels, image)).map((spec) => [spec.kernelId, spec]));
  const results = await Promise.all([...byAgent].map(([agent, own]) => agent.createKernels(own.map((kernel) => specs.get(kernel.id)!), { placed })));
  return results.flat();
}

async function recordStartedKernel(app: App, info: KernelInfo): Promise<void> {
  await transitionKernel(app, info.kernelId, 'RUNNING', { started: { containerId: info.containerId, channel: json(info.endpoint) } });
}

async function failLaunch(app: App, sessionId: string, err: unknown): Promise<void> {
  const message = err instanceof Error ? err.message : String(err);
  app.log.warn({ sessionId, err: message }, 'session failed to start');
  await destroyKernels(app, sessionId);
  const kernels = await app.db.selectFrom('kernels').select('id').where('session_id', '=', sessionId).execute();
  for (const kernel of kernels) {
    await transitionKernel(app, kernel.id, 'ERROR', { reason: 'failed-to-start', statusData: { error: { message } } });
    await releaseKernelSlots(app, kernel.id);
  }
  await transitionSession(app, sessionId, 'ERROR', { reason: 'failed-to-start', statusData: { error: { name: 'KernelCreationFailed', message } } });
  app.triggerScheduler();
}

async function destroyKernels(app: App, sessionId: string): Promise<void> {
  const kernels = await app.db.selectFrom('kernels').select(['id', 'agent_id']).where('session_id', '=', sessionId).execute();
  for (const kernel of kernels) await app.agents.get(kernel.agent_id ?? '')?.destroyKernel(kernel.id).catch(() => undefined);
}
