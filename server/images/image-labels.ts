/**
 * Backend.AI's image label convention, read so that images made for Backend.AI run unchanged in Berth:
 *   ai.backend.kernelspec          the convention's version (present on every kernel image)
 *   ai.backend.runtime-type        `python` (Berth's query mode drives that interpreter), `shell` (queries are bash
 *                                  scripts); anything else, or none: `app` (terminals, batch commands and apps; code
 *                                  execution answers a clear error, since the image has no interpreter Berth knows)
 *   ai.backend.runtime-path        the interpreter, e.g. /usr/bin/python3 (also runs Berth's kernel runner)
 *   ai.backend.service-ports       `name:protocol:port` (or `name:protocol:[p1,p2]`), comma-separated
 *   ai.backend.resource.min.<slot> minimum resources, e.g. cpu=1, mem=256m
 *   ai.backend.base-distro         e.g. ubuntu22.04 (shown, not interpreted)
 * An app's command comes from the image's /etc/backend.ai/service-defs/<name>.json (`command`, with `{ports[0]}`
 * for its port), as Backend.AI reads it.
 */
import type { ServicePort } from '../db/schema';
import type { Runtime } from '../agents/agent';

export interface ImageRuntime {
  runtime: Runtime;
  runtimePath: string | null;
  servicePorts: ServicePort[];
  resourceLimits: Record<string, { min: string; max?: string | null }>;
}

const PROTOCOLS = new Set(['http', 'tcp', 'pty', 'preopen', 'internal']);
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export function parseServicePortsLabel(label: string | undefined): { name: string; protocol: string; ports: number[] }[] {
  if (!label) return [];
  const entries: { name: string; protocol: string; ports: number[] }[] = [];
  // Split on commas outside brackets: `jupyter:http:8080,vscode:http:[8180,8181]`.
  for (const item of label.split(/,(?![^[]*\])/)) {
    const match = /^\s*([^:\s]+):([a-z]+):(\[[\d,\s]+\]|\d+)\s*$/.exec(item);
    if (!match || !NAME.test(match[1]) || !PROTOCOLS.has(match[2])) continue;
    const ports = match[3].replace(/[[\]\s]/g, '').split(',').filter(Boolean).map(Number);
    if (!ports.length || ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535)) continue;
    entries.push({ name: match[1], protocol: match[2], ports });
  }
  return entries;
}

/** A service-def's `command`, in Berth's argv templates ({port}, {host}, {base_url}). */
export function serviceDefArgv(def: unknown): string[] | null {
  const command = (def as { command?: unknown } | null)?.command;
  if (!Array.isArray(command) || !command.length || !command.every((c) => typeof c === 'string')) return null;
  return command.map((part: string) => part.replaceAll('{ports[0]}', '{port}'));
}

/** The runtime description of an image from its labels and the service-defs found in it (name → parsed JSON). */
export function imageRuntime(labels: Record<string, string>, serviceDefs: Record<string, unknown> = {}): ImageRuntime {
  const runtimePath = labels['ai.backend.runtime-path']?.startsWith('/') ? labels['ai.backend.runtime-path'] : null;
  const type = labels['ai.backend.runtime-type'];
  const runtime: Runtime = type === 'python' && runtimePath ? 'python' : type === 'shell' ? 'shell' : 'app';
  const servicePorts: ServicePort[] = parseServicePortsLabel(labels['ai.backend.service-ports']).map((entry) => {
    const argv = serviceDefArgv(serviceDefs[entry.name]);
    return { name: entry.name, protocol: entry.protocol as ServicePort['protocol'], ports: entry.ports, ...(argv ? { argv } : {}) };
  });
  const resourceLimits: ImageRuntime['resourceLimits'] = {};
  for (const [key, value] of Object.entries(labels)) {
    const slot = /^ai\.backend\.resource\.min\.(.+)$/.exec(key)?.[1];
    if (slot && value.trim()) resourceLimits[slot] = { min: value.trim() };
  }
  return { runtime, runtimePath, servicePorts, resourceLimits };
}

/** The registry part of an image reference: its first component when that names a host, else Docker Hub. */
export function registryOf(reference: string): string {
  const slash = reference.indexOf('/');
  if (slash < 0) return 'docker.io';
  const first = reference.slice(0, slash);
  return first.includes('.') || first.includes(':') || first === 'localhost' ? first : 'docker.io';
}

/** Whether the reference names its registry explicitly (`cr.example.com/x:1`), rather than a local or Hub name. */
export function hasExplicitRegistry(reference: string): boolean {
  const slash = reference.indexOf('/');
  if (slash < 0) return false;
  const first = reference.slice(0, slash);
  return first.includes('.') || first.includes(':') || first === 'localhost';
}
