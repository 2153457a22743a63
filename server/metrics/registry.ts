/**
 * Berth's Prometheus metrics (issue 14), made with prom-client: one registry per manager (App) for Berth's own
 * metrics, one per process for Node's default ones. Label values are always from fixed sets (route patterns,
 * statuses, agent ids, slot names): nothing a client sends becomes a label. The gauges read from the database are
 * set by ./figures when a scrape asks for them.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { App } from '../app';

export interface BerthMetrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  sessions: Gauge<'status'>;
  kernels: Gauge<'status' | 'agent'>;
  sessionStart: Histogram;
  schedulerPass: Histogram<'pass'>;
  schedulerPending: Gauge;
  agentSlots: Gauge<'agent' | 'slot' | 'kind'>;
  agents: Gauge<'status'>;
  appProxyRequests: Counter<'kind'>;
  wsConnections: Gauge<'stream'>;
  storageBytes: Counter<'direction'>;
}

const byApp = new WeakMap<App, BerthMetrics>();

function create(): BerthMetrics {
  const registry = new Registry();
  const registers = [registry];
  const metrics: BerthMetrics = {
    registry,
    httpRequests: new Counter({
      name: 'berth_http_requests_total',
      help: 'Manager API requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'berth_http_request_duration_seconds',
      help: 'Time from a manager API request to its answer (streams excluded), by method and route pattern.',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    sessions: new Gauge({ name: 'berth_sessions', help: 'Session records by status.', labelNames: ['status'], registers }),
    kernels: new Gauge({ name: 'berth_kernels', help: 'Kernels that have not ended, by status and agent.', labelNames: ['status', 'agent'], registers }),
    sessionStart: new Histogram({
      name: 'berth_session_start_seconds',
      help: 'Time from POST /session to RUNNING.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    }),
    schedulerPass: new Histogram({
      name: 'berth_scheduler_pass_seconds',
      help: 'Duration of scheduler passes, by pass (schedule, prepare, scale_services).',
      labelNames: ['pass'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
      registers,
    }),
    schedulerPending: new Gauge({ name: 'berth_scheduler_pending_sessions', help: 'Sessions waiting for the scheduler (PENDING).', registers }),
    agentSlots: new Gauge({
      name: 'berth_agent_slots',
      help: 'Resource slots of each agent that is not terminated: kind="capacity" (what it offers) or "used".',
      labelNames: ['agent', 'slot', 'kind'],
      registers,
    }),
    agents: new Gauge({ name: 'berth_agents', help: 'Agents by status.', labelNames: ['status'], registers }),
    appProxyRequests: new Counter({
      name: 'berth_app_proxy_requests_total',
      help: 'Requests to the app proxy: kind="app" (in-session apps) or "service" (model services).',
      labelNames: ['kind'],
      registers,
    }),
    wsConnections: new Gauge({ name: 'berth_ws_connections', help: 'Open WebSocket connections by stream.', labelNames: ['stream'], registers }),
    storageBytes: new Counter({
      name: 'berth_storage_bytes_total',
      help: 'Bytes moved by storage transfers: direction="upload" (accepted by tus PATCH) or "download" (sent).',
      labelNames: ['direction'],
      registers,
    }),
  };
  // Zero series for the fixed label sets, so a fresh manager scrapes them before the first event.
  metrics.appProxyRequests.inc({ kind: 'app' }, 0);
  metrics.appProxyRequests.inc({ kind: 'service' }, 0);
  metrics.storageBytes.inc({ direction: 'upload' }, 0);
  metrics.storageBytes.inc({ direction: 'download' }, 0);
  return metrics;
}

export function metricsOf(app: App): BerthMetrics {
  let metrics = byApp.get(app);
  if (!metrics) byApp.set(app, (metrics = create()));
  return metrics;
}

let processRegistry: Registry | null = null;

/** Node's default process metrics (CPU, memory, event loop lag, GC…): one set per process, whatever the managers. */
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}
