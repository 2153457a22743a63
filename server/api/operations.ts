/**
 * Operating Berth (issue 14): Prometheus metrics (a bearer token or a signed superadmin), the unsigned health
 * probes for process supervisors and load balancers, and the backup download `berth backup` uses.
 */
import { route, raw } from '../http/route';
import { scrapeMetrics } from '../metrics/figures';
import { authorizeScrape } from '../metrics/scrape';
import { readiness } from '../health/readiness';
import { createBackup } from '../backup/create';

export const operationsRoutes = [
  route({
    method: 'GET', path: '/metrics', privilege: 'none', status: null,
    summary: 'Prometheus metrics (text format): Authorization: Bearer <BERTH_METRICS_TOKEN>, or signed by a superadmin',
    response: 'The text exposition format of prom-client; 401 for a missing or wrong token or signature, 403 for a signed caller who is not a superadmin.',
    handler: async ({ app, req, rawBody, clientIp, requestId }) => {
      await authorizeScrape(app, { req, rawBody, clientIp, requestId });
      const { contentType, text } = await scrapeMetrics(app);
      return raw(contentType, text, { headers: { 'Cache-Control': 'no-store' } });
    },
  }),
  route({
    method: 'GET', path: '/healthz', privilege: 'none', status: null,
    summary: 'Liveness probe (unsigned): 200 while the process serves',
    handler: () => ({ status: 'ok' }),
  }),
  route({
    method: 'GET', path: '/readyz', privilege: 'none', status: null,
    summary: 'Readiness probe (unsigned): the database answers, every role listens, the local agent is ALIVE',
    response: '{"status": "ready", "checks": {…}}, or 503 service-unavailable naming what is not ready (data.checks).',
    handler: ({ app }) => readiness(app),
  }),
  route({
    method: 'POST', path: '/manager/backup', privilege: 'superadmin', status: null,
    summary: 'A consistent backup of the whole database, streamed while Berth serves (berth backup FILE)',
    response: 'A Berth backup file (application/vnd.berth.backup): it holds every user, keypair and secret, so keep it as such.',
    handler: async ({ app }) => {
      const { meta, stream } = await createBackup(app);
      const name = `berth-${meta.created_at.replace(/[:.]/g, '-')}.berth-backup`;
      return raw('application/vnd.berth.backup', stream, { headers: { 'Content-Disposition': `attachment; filename="${name}"`, 'Cache-Control': 'no-store' } });
    },
  }),
];
