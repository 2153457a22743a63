/** What a kernel is started with: environment, limits, cluster peers, dotfiles, sshd's keys and the bootstrap script. */
import type { App } from '../app';
import type { KernelFile, KernelSpec, Runtime } from '../agents/agent';
import type { Dotfile, Image, Kernel, Session } from '../db/schema';
import { parseAmount, toAmounts } from '../resources/slots';
import { isEngineImage } from '../images/engine-images';
import { kernelMountsFor } from '../storage/session-mounts';
import { lookupPath } from '../userconfig/validation';
import { sshdFiles } from '../apps/sshd';

const MAX_PIDS = 4096;

export async function buildKernelSpec(app: App, session: Session, kernel: Kernel, peers: Kernel[], image: Image): Promise<KernelSpec> {
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
    mounts: await kernelMountsFor(app, session),
    // The session's SSH server files come last, so no dotfile replaces them.
    files: [...(await dotfilesFor(app, session)), ...(await sshdFiles(app, session, kernel))],
    bootstrapScript: await bootstrapScriptFor(app, session),
    snapshotDir: image.snapshot_dir,
    placement: await placementFor(app, session),
  };
}

function shmBytes(session: Session): number | undefined {
  const bytes = parseAmount((session.resource_opts as Record<string, unknown>)?.shmem);
  return Number.isFinite(bytes) && bytes > 0 ? Math.floor(bytes) : undefined;
}

/** What a cluster backend passes on to its workload manager: the project (as an account) and the time limit. */
async function placementFor(app: App, session: Session): Promise<KernelSpec['placement']> {
  const [group, policy] = await Promise.all([
    app.db.selectFrom('groups').select('name').where('id', '=', session.group_id).executeTakeFirst(),
    app.db
      .selectFrom('keypairs')
      .innerJoin('keypair_resource_policies as p', 'p.name', 'keypairs.resource_policy')
      .select('p.max_session_lifetime')
      .where('keypairs.access_key', '=', session.access_key)
      .executeTakeFirst(),
  ]);
  return { account: group?.name ?? null, timeLimitSeconds: policy?.max_session_lifetime || null };
}

/**
 * Domain, then project, then user dotfiles: a later scope overrides an earlier one at the same path, and an
 * earlier file that would be a folder of a later one (or inside it) gives way, so the files never collide.
 */
async function dotfilesFor(app: App, session: Session): Promise<KernelFile[]> {
  const [domain, group, user] = await Promise.all([
    app.db.selectFrom('domains').select('dotfiles').where('name', '=', session.domain_name).executeTakeFirst(),
    app.db.selectFrom('groups').select('dotfiles').where('id', '=', session.group_id).executeTakeFirst(),
    app.db.selectFrom('users').select('dotfiles').where('uuid', '=', session.user_uuid).executeTakeFirst(),
  ]);
  const byPath = new Map<string, Dotfile>();
  for (const list of [domain?.dotfiles, group?.dotfiles, user?.dotfiles]) {
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

async function bootstrapScriptFor(app: App, session: Session): Promise<string | undefined> {
  if (session.bootstrap_script) return session.bootstrap_script;
  const user = await app.db.selectFrom('users').select('bootstrap_script').where('uuid', '=', session.user_uuid).executeTakeFirst();
  return user?.bootstrap_script || undefined;
}
