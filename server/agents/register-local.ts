/**
 * Registers this machine as an ALIVE agent of the `default` scaling group with its real CPU count and memory
 * as slots (CONTRACT §0). Called on every start, so the slots follow the hardware.
 */
import os from 'node:os';
import type { App } from '../app';
import { json } from '../db';

export function localAgentId(): string {
  return `i-${os.hostname()}`;
}

export function localSlots(): Record<string, string> {
  return { cpu: String(os.cpus().length), mem: String(os.totalmem()) };
}

export async function registerLocalAgent(app: App, version: string): Promise<string> {
  const id = localAgentId();
  const now = new Date();
  await app.db
    .insertInto('agents')
    .values({
      id,
      status: 'ALIVE',
      status_changed: now,
      scaling_group: 'default',
      available_slots: json(localSlots()),
      occupied_slots: json({}),
      addr: `local://${os.hostname()}`,
      version,
      architecture: os.arch() === 'x64' ? 'x86_64' : os.arch(),
      compute_plugins: json({ cpu: {} }),
      backend: 'local',
    })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({ status: 'ALIVE', status_changed: now, available_slots: json(localSlots()), version, lost_at: null }),
    )
    .execute();
  return id;
}
