/** What a kernel is started with: environment, limits, cluster peers, dotfiles, sshd's keys and the bootstrap script. */
import type { App } from '../app';
import type { KernelFile, KernelMount, KernelSpec, Runtime } from '../agents/agent';
import type { Dotfile, Image, Kernel, Session } from '../db/schema';
import { parseAmount, toAmounts } from '../resources/slots';
import { isEngineImage } from '../images/engine-images';
import { kernelMountsFor } from '../storage/session-mounts';
import { lookupPath } from '../userconfig/validation';
import { sshdFiles } from '../apps/sshd';
import { loadKernelContext, type KernelContext } from './kernel-context';

const MAX_PIDS = 4096;

/**
 * The specs of a session's kernels (all of them, or the `only` ones). What they share is read once: the session's
 * context in one query (./kernel-context) and its folders, so a cluster session costs no more queries than one
 * kernel, and a launch waits on as few round trips as it can.
 */
export async function buildKernelSpecs(app: App, session: Session, peers: Kernel[], image: Image, only: Kernel[] = peers): Promise<KernelSpec[]> {
  const [context, mounts] = await Promise.all([loadKernelContext(app, session), kernelMountsFor(app, session)]);
  const dotfiles = mergedDotfiles(context);
  return only.map((kernel) => kernelSpec(session, kernel, peers, image, { context, mounts, dotfiles }));
}

function kernelSpec(session: Session, kernel: Kernel, peers: Kernel[], image: Image, shared: { context: KernelContext; mounts: KernelMount[]; dotfiles: KernelFile[] }): KernelSpec {
  const { context } = shared;
  const slots = toAmounts(kernel.occupied_slots);
  const hostnames = peers.map((k) => k.cluster_hostname);
  const environ: Record<string, string> = {
    ...session.environ,
    BERTH_SESSION_ID: session.id,
    BERTH_SESSION_NAME: session.name,
    BERTH_KERNEL_ID: kernel.id,
    BERTH_CLUSTER_ROLE: kernel.cluster_role,
    BERTH_CLUSTER_IDX: String(kernel.cluster_idx),
    BERTH_CLUSTER_HOST: kernel.cluster_hostname,
    BERTH_CLUSTER_HOSTS: hostnames.join(','),
    BERTH_CLUSTER_SIZE: String(session.cluster_size),
    // Backend.AI's names, for scripts written against it.
    BACKENDAI_SESSION_ID: session.id,
    BACKENDAI_KERNEL_ID: kernel.id,
    BACKENDAI_CLUSTER_ROLE: kernel.cluster_role,
    BACKENDAI_CLUSTER_IDX: String(kernel.cluster_idx),
    BACKENDAI_CLUSTER_HOST: kernel.cluster_hostname,
    BACKENDAI_CLUSTER_HOSTS: hostnames.join(','),
    BACKENDAI_CLUSTER_SIZE: String(session.cluster_size),
  };
  if (slots.cpu) environ.OMP_NUM_THREADS = String(Math.max(1, Math.floor(slots.cpu)));
  return {
    kernelId: kernel.id,
    sessionId: session.id,
    clusterIdx: peers.findIndex((k) => k.id === kernel.id),
    clusterSize: peers.length,
    singleNode: session.cluster_mode !== 'multi-node',
    runtime: image.runtime as Runtime,
    image: isEngineImage(image) ? image.name : null,
    hostname: kernel.cluster_hostname,
    hosts: Object.fromEntries(hostnames.map((h) => [h, '127.0.0.1'])),
    environ,
    limits: { memoryBytes: slots.mem || undefined, cpus: slots.cpu || undefined, pids: MAX_PIDS, gpus: slots['cuda.device'] || slots['cuda.shares'] || undefined, shmBytes: shmBytes(session) },
    mounts: shared.mounts,
    // The session's SSH server files come last, so no dotfile replaces them.
    files: [...shared.dotfiles, ...sshdFiles(session, kernel, context.sshPublicKey)],
    bootstrapScript: session.bootstrap_script || context.userBootstrapScript || undefined,
    snapshotDir: image.snapshot_dir,
    // What a cluster backend passes on to its workload manager: the project (as an account) and the time limit.
    placement: { account: context.groupName, timeLimitSeconds: context.maxSessionLifetime || null },
  };
}

function shmBytes(session: Session): number | undefined {
  const bytes = parseAmount((session.resource_opts as Record<string, unknown>)?.shmem);
  return Number.isFinite(bytes) && bytes > 0 ? Math.floor(bytes) : undefined;
}

/**
 * Domain, then project, then user dotfiles: a later scope overrides an earlier one at the same path, and an
 * earlier file that would be a folder of a later one (or inside it) gives way, so the files never collide.
 */
function mergedDotfiles(context: KernelContext): KernelFile[] {
  const byPath = new Map<string, Dotfile>();
  for (const list of [context.domainDotfiles, context.groupDotfiles, context.userDotfiles]) {
    for (const file of list ?? []) {
      const path = lookupPath(file.path);
      if (!path) continue;
      for (const existing of [...byPath.keys()]) {
        if (existing.startsWith(`${path}/`) || path.startsWith(`${existing}/`)) byPath.delete(existing);
      }
      byPath.set(path, file);
    }
  }
  return [...byPath.entries()].map(([path, f]) => ({ path, content: f.data, mode: parseInt(f.permission, 8) }));
}
