/**
 * Apps every container offers whatever its image (CONTRACT §11.4): `ttyd`, a web terminal (http, container port
 * 7681) served by the sandbox's web_terminal.py. An image that defines an app of the same name keeps its own.
 */
import type { ServicePort } from '../db/schema';
import { WEB_TERMINAL_IN_SANDBOX } from '../agents/local/sandbox';

export const INTRINSIC_APPS: readonly ServicePort[] = [
  { name: 'ttyd', protocol: 'http', ports: [7681], argv: ['/usr/bin/python3', WEB_TERMINAL_IN_SANDBOX, '{port}', '{base_url}'] },
];

/** The apps of a session of this image: the image's own, then the intrinsic ones it does not override. */
export function appsOf(image: { service_ports: ServicePort[] }): ServicePort[] {
  const own = new Set(image.service_ports.map((p) => p.name));
  return [...image.service_ports, ...INTRINSIC_APPS.filter((p) => !own.has(p.name))];
}
