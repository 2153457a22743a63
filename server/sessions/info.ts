/** The session record as GET /session/{name} shows it (CONTRACT §7.2), and the dependency graph. */
import type { App } from '../app';
import type { Session } from '../db/schema';
import { formatKernelStat } from './kernel-stats';
import { idleChecksOf } from '../culling/checks';
import { queuePlaces } from './scheduler/queue';
import { reachKernel } from '../cluster/kernels';

export async function sessionInfo(app: App, session: Session) {
  const main = await app.db.selectFrom('kernels').selectAll().where('session_id', '=', session.id).where('cluster_role', '=', 'main').executeTakeFirst();
  const agent = main ? await reachKernel(app, main) : undefined;
  const live = agent && main && agent.isAlive(main.id) ? agent.stats(main.id) : null;
  const lastStat = live ? formatKernelStat(live) : (main?.last_stat ?? null);
  const place = (await queuePlaces(app, [session])).get(session.id);
  const registry = session.image.includes('/') ? session.image.split('/')[0] : 'local';
  return {
    sessionId: session.id,
    sessionName: session.name,
    domainName: session.domain_name,
    groupId: session.group_id,
    userId: session.user_uuid,
    image: session.image,
    lang: session.image,
    architecture: session.architecture,
    registry,
    tag: session.tag,
    type: session.session_type,
    clusterSize: session.cluster_size,
    clusterMode: session.cluster_mode,
    containerId: main?.container_id ?? null,
    occupiedSlots: session.occupying_slots,
    occupyingSlots: session.occupying_slots,
    requestedSlots: session.requested_slots,
    occupiedShares: {},
    environ: session.environ,
    resourceOpts: session.resource_opts,
    status: session.status,
    statusInfo: session.status_info ?? '',
    statusData: session.status_data,
    // A pending session's place in its scaling group's queue (1 = next) and when it may start ("unknown").
    queuePosition: place?.position ?? null,
    estimatedStart: place ? place.estimatedStart : null,
    statusHistory: session.status_history,
    result: session.result,
    age: Date.now() - session.created_at.getTime(),
    creationTime: session.created_at.toISOString(),
    terminationTime: session.terminated_at ? session.terminated_at.toISOString() : null,
    numQueriesExecuted: session.num_queries,
    lastStat,
    idleChecks: await idleChecksOf(app, session),
  };
}

export interface DependencyNode {
  session_id: string;
  session_name: string;
  status: string;
  status_changed: string;
  depends_on: DependencyNode[];
}

export async function dependencyGraph(app: App, session: Session, seen = new Set<string>()): Promise<DependencyNode> {
  seen.add(session.id);
  const parents = await app.db
    .selectFrom('session_dependencies as d')
    .innerJoin('sessions as s', 's.id', 'd.depends_on')
    .selectAll('s')
    .where('d.session_id', '=', session.id)
    .execute();
  const depends_on: DependencyNode[] = [];
  for (const parent of parents) if (!seen.has(parent.id)) depends_on.push(await dependencyGraph(app, parent, seen));
  return { session_id: session.id, session_name: session.name, status: session.status, status_changed: session.status_changed.toISOString(), depends_on };
}
