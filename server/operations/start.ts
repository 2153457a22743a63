/**
 * Starts what operating Berth needs beside the listeners (issue 14): the idle culler, the audit log's pruning and
 * flushing, the session-start timer, the embedded database's upkeep (db-upkeep.ts), and the listeners' watch for
 * /readyz and metrics. One call from start.ts.
 */
import type http from 'node:http';
import type { App } from '../app';
import { auditOf } from '../audit/writer';
import { pruneAuditLog } from '../audit/list';
import { IdleCuller } from '../culling/culler';
import { expectRoles } from '../health/readiness';
import { watchListener, type ListenerRole } from '../metrics/listeners';
import { watchSessionStarts } from '../metrics/passes';
import { startEmbeddedUpkeep } from './db-upkeep';

const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface Operations {
  culler: IdleCuller;
  /** Call once a role's server listens. */
  watch(role: ListenerRole, server: http.Server): void;
  stop(): Promise<void>;
}

/** singletons: whether this replica competes for the culler's and the audit pruning's leases (cluster/leases). */
export function startOperations(app: App, roles: ListenerRole[], singletons = true): Operations {
  expectRoles(app, ['manager', ...roles.filter((r) => r !== 'manager')]);
  const stopWatchingStarts = watchSessionStarts(app);
  // PGlite has no autovacuum: one process owns it, so no lease is needed.
  const stopUpkeep = startEmbeddedUpkeep(app);
  // Every replica stores the activity it sees; only the lease holder ends idle sessions.
  const culler = new IdleCuller(app, app.settings.idleCheckIntervalMs, () => app.leases.held('idle-culler'));
  culler.start();
  const prune = () => pruneAuditLog(app).catch((err: unknown) => app.log.warn({ err }, 'audit log pruning failed'));
  let pruning: NodeJS.Timeout | undefined;
  if (singletons) {
    app.leases.add({ name: 'idle-culler', start: () => undefined, stop: () => undefined });
    app.leases.add({
      name: 'audit-pruning',
      start() {
        void prune();
        pruning = setInterval(() => void prune(), PRUNE_EVERY_MS);
        pruning.unref();
      },
      stop: () => clearInterval(pruning),
    });
  }
  return {
    culler,
    watch: (role, server) => watchListener(app, role, server),
    async stop() {
      clearInterval(pruning);
      stopUpkeep();
      stopWatchingStarts();
      await culler.stop();
      await auditOf(app).close();
    },
  };
}
