/**
 * The apps (service ports) of a session: its image's, the intrinsic ones every container offers (CONTRACT §11.4:
 * `ttyd`, a web terminal on container port 7681, served by the sandbox's web_terminal.py, and `sshd` on 2200, ./sshd), and the session's
 * `config.preopen_ports` (protocol `preopen`: the user's own servers; the sandbox shares the host's network, so
 * the container port is the host port). An image's app of the same name wins over an intrinsic one.
 */
import type { App } from '../app';
import type { KernelServicePort, ServicePort, Session } from '../db/schema';
import { WEB_TERMINAL_IN_SANDBOX } from '../agents/sandbox/sandbox';
import { SSHD_ARGV, SSHD_PORT } from './sshd';

export const INTRINSIC_APPS: readonly ServicePort[] = [
  { name: 'ttyd', protocol: 'http', ports: [7681], argv: ['/usr/bin/python3', WEB_TERMINAL_IN_SANDBOX, '{port}', '{base_url}'] },
  { name: 'sshd', protocol: 'tcp', ports: [SSHD_PORT], argv: SSHD_ARGV },
];

/** The apps of any session of this image: the image's own, then the intrinsic ones it does not override. */
export function appsOf(image: { service_ports: ServicePort[] }): ServicePort[] {
  const own = new Set(image.service_ports.map((p) => p.name));
  return [...image.service_ports, ...INTRINSIC_APPS.filter((p) => !own.has(p.name))];
}

/** What a new kernel records for the session's preopen ports. */
export function preopenPorts(ports: number[] = []): KernelServicePort[] {
  return [...new Set(ports)].map((port) => ({ name: String(port), protocol: 'preopen', ports: [port], host_ports: [port] }));
}

/** The image's and intrinsic apps plus the preopen ports recorded on the kernel. */
export function withPreopen(apps: ServicePort[], kernelPorts: KernelServicePort[]): ServicePort[] {
  const names = new Set(apps.map((p) => p.name));
  return [...apps, ...kernelPorts.filter((p) => p.protocol === 'preopen' && !names.has(p.name)).map(({ host_ports: _, ...p }) => p)];
}

/** Every app of this session. */
export async function sessionApps(app: App, session: Session): Promise<ServicePort[]> {
  const image = await app.db.selectFrom('images').select('service_ports').where('id', '=', session.image_id).executeTakeFirstOrThrow();
  const main = await app.db.selectFrom('kernels').select('service_ports').where('session_id', '=', session.id).where('cluster_role', '=', 'main').executeTakeFirst();
  return withPreopen(appsOf(image), main?.service_ports ?? []);
}

/** The compact form of CONTRACT §7.1. */
export function compactServicePorts(apps: ServicePort[]): Record<string, unknown>[] {
  return apps.map((p) => ({
    name: p.name,
    protocol: p.protocol,
    ports: p.ports,
    url_template: p.url_template ?? null,
    allowed_arguments: p.allowed_arguments ?? null,
    allowed_envs: p.allowed_envs ?? null,
  }));
}
