/** `/folders/_/hosts`, `/folders/_/all-hosts` and `/folders/_/allowed-types` (CONTRACT §9.2). */
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { allVolumes, defaultHost, volumeUsage, type VolumeUsage } from './hosts';
import { grantsOf, hostsWithAnyPermission } from './host-permissions';
import { resolveProject } from './projects';

export interface VolumeInfo {
  backend: string;
  capabilities: string[];
  usage: VolumeUsage | null;
  sftp_scaling_groups: string[];
}

/** The hosts the caller may use (for their user folders, or for a project's folders with group_id). */
export async function listHosts(app: App, caller: Principal, groupId?: string | null): Promise<{ default: string | null; allowed: string[]; volume_info: Record<string, VolumeInfo> }> {
  let grants;
  if (groupId) {
    const project = await resolveProject(app, caller, groupId, 'group_id');
    grants = await grantsOf(app, { userId: caller.userId, domainName: project.domain_name, keypairPolicy: caller.keypairPolicy }, project.id);
  } else {
    grants = await grantsOf(app, caller);
  }
  const volumes = allVolumes(app);
  const allowed = hostsWithAnyPermission(grants, volumes.map((v) => v.host)).sort();
  const fallback = await defaultHost(app);
  const volume_info: Record<string, VolumeInfo> = {};
  for (const volume of volumes.filter((v) => allowed.includes(v.host))) {
    let usage: VolumeUsage | null = null;
    try {
      usage = await volumeUsage(app, volume);
    } catch (err) {
      app.log.warn({ err, host: volume.host }, 'could not read the usage of a storage volume');
    }
    volume_info[volume.host] = { backend: volume.backend, capabilities: volume.capabilities, usage, sftp_scaling_groups: [] };
  }
  return { default: fallback && allowed.includes(fallback) ? fallback : null, allowed, volume_info };
}

export async function listAllHosts(app: App): Promise<{ default: string | null; allowed: string[] }> {
  return { default: await defaultHost(app), allowed: allVolumes(app).map((v) => v.host).sort() };
}

export const ALLOWED_TYPES = ['user', 'group'];
