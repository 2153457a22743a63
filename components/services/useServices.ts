'use client';
/**
 * Data access for the model services pages (CONTRACT §13): the list, one service, its errors, and the actions on
 * them, all through the signed /api/manager relay. A service still provisioning routes is polled faster.
 */
import { managerSend, useManager } from '@/components/api/useManager';

export interface ServiceSummary {
  id: string;
  name: string;
  desired_session_count: number;
  active_route_count: number;
  service_endpoint: string | null;
  is_public: boolean;
}

export interface ActiveRoute {
  route_id: string;
  session_id: string;
  traffic_ratio: number;
}

export interface ServeInfo {
  endpoint_id: string;
  model_id: string;
  extra_mounts: string[];
  name: string;
  desired_session_count: number;
  model_definition_path: string | null;
  active_routes: ActiveRoute[];
  service_endpoint: string | null;
  is_public: boolean;
  runtime_variant: string;
}

export interface ServiceErrors {
  errors: { session_id: string | null; error: Record<string, unknown> }[];
  retries: number;
}

export interface CreateServiceInput {
  name: string;
  model: string;
  image: string;
  replicas: number;
  openToPublic: boolean;
  startupCommand: string;
}

const enc = encodeURIComponent;

/** Where every service's model folder is mounted (read-only) in its sessions. */
export const MODEL_MOUNT = '/home/work/model';
export const SERVICE_IMAGES = [
  { value: 'python', label: 'Python' },
  { value: 'shell', label: 'Shell' },
];

const SERVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const serviceNameProblem = (name: string) => (SERVICE_NAME.test(name) ? null : 'Start with a letter or digit; use letters, digits, dots, dashes and underscores (at most 64).');

/** Fewer healthy routes than wanted: still provisioning (or failing), worth polling. */
const settling = (active: number, desired: number) => active !== desired;

export function useServices() {
  return useManager<ServiceSummary[]>('/services', {
    refreshInterval: (list) => (list?.some((s) => settling(s.active_route_count, s.desired_session_count)) ? 2_000 : 10_000),
  });
}

export function useService(id: string) {
  return useManager<ServeInfo>(`/services/${enc(id)}`, {
    refreshInterval: (info) => (!info || settling(info.active_routes.length, info.desired_session_count) ? 2_000 : 10_000),
  });
}

export function useServiceErrors(id: string, polling: boolean) {
  return useManager<ServiceErrors>(`/services/${enc(id)}/errors`, { refreshInterval: polling ? 3_000 : 15_000 });
}

export const createService = (input: CreateServiceInput) =>
  managerSend<ServeInfo>('POST', '/services', {
    name: input.name,
    desired_session_count: input.replicas,
    image: input.image,
    cluster_size: 1,
    cluster_mode: 'single-node',
    open_to_public: input.openToPublic,
    ...(input.startupCommand.trim() ? { startup_command: input.startupCommand.trim() } : {}),
    config: { model: input.model, model_mount_destination: MODEL_MOUNT },
  });

export const scaleService = (id: string, to: number) => managerSend<{ current_route_count: number; target_count: number }>('POST', `/services/${enc(id)}/scale`, { to });
export const issueServiceToken = (id: string, duration: string) => managerSend<{ token: string }>('POST', `/services/${enc(id)}/token`, { duration });
export const clearServiceErrors = (id: string) => managerSend('POST', `/services/${enc(id)}/errors/clear`, {});
export const deleteService = (id: string) => managerSend('DELETE', `/services/${enc(id)}`);

const DURATION = /^(\d+[ydhms])+$/;
export const durationProblem = (text: string) => (DURATION.test(text) ? null : 'A duration such as 30d, 12h or 1y30d.');

/** "1 / 2" with what it means, for the routes column and the service page. */
export function routesLabel(active: number, desired: number): { text: string; color: 'success' | 'warning' | 'default' } {
  if (desired === 0) return { text: 'Scaled to 0', color: 'default' };
  return { text: `${active} / ${desired} ready`, color: active >= desired ? 'success' : 'warning' };
}
