/**
 * First start on an empty database (CONTRACT §0): the default domain, project, scaling group, policies and
 * presets, and the first superadmin, whose generated credentials are printed once and saved (mode 0600).
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { App } from '../app';
import { json } from '../db';
import { generatePassword } from '../auth/keys';
import { createUser } from './create-user';

const GiB = 1024 ** 3;

export const DEFAULT_PRESETS = [
  { name: 'small', cpu: 1, mem: 1 * GiB, shmem: 64 * 1024 ** 2 },
  { name: 'medium', cpu: 2, mem: 4 * GiB, shmem: 256 * 1024 ** 2 },
  { name: 'large', cpu: 4, mem: 8 * GiB, shmem: 1 * GiB },
];

/** Every host permission of CONTRACT §5.3, granted on the `local` host by default. */
export const ALL_HOST_PERMISSIONS = [
  'create-vfolder',
  'modify-vfolder',
  'delete-vfolder',
  'mount-in-session',
  'upload-file',
  'download-file',
  'invite-others',
  'set-user-specific-permission',
];

export interface BootstrapResult {
  created: boolean;
  credentials?: { email: string; username: string; password: string; accessKey: string; secretKey: string };
}

export async function bootstrap(app: App): Promise<BootstrapResult> {
  const { db, settings } = app;
  const existing = await db.selectFrom('users').select('uuid').limit(1).executeTakeFirst();
  if (existing) return { created: false };

  const hostPermissions = json({ local: ALL_HOST_PERMISSIONS });
  const groupId = randomUUID();
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('keypair_resource_policies').values({ name: 'default', total_resource_slots: json({}), allowed_vfolder_hosts: hostPermissions, max_concurrent_sessions: 30, max_containers_per_session: 16 }).execute();
    await trx.insertInto('user_resource_policies').values({ name: 'default' }).execute();
    await trx.insertInto('project_resource_policies').values({ name: 'default' }).execute();
    await trx.insertInto('domains').values({ name: 'default', description: 'The default domain', total_resource_slots: json({}), allowed_vfolder_hosts: hostPermissions, allowed_docker_registries: json([]), dotfiles: json([]) }).execute();
    await trx.insertInto('groups').values({ id: groupId, name: 'default', description: 'The default project', domain_name: 'default', total_resource_slots: json({}), allowed_vfolder_hosts: hostPermissions, dotfiles: json([]) }).execute();
    await trx.insertInto('scaling_groups').values({ name: 'default', description: 'The default scaling group', driver_opts: json({}), scheduler_opts: json({}) }).execute();
    await trx.insertInto('sgroups_for_domains').values({ scaling_group: 'default', domain: 'default' }).execute();
    await trx.insertInto('sgroups_for_groups').values({ scaling_group: 'default', group_id: groupId }).execute();
    await trx
      .insertInto('resource_presets')
      .values(DEFAULT_PRESETS.map((p) => ({ id: randomUUID(), name: p.name, resource_slots: json({ cpu: String(p.cpu), mem: String(p.mem) }), shared_memory: p.shmem })))
      .execute();
  });

  const password = settings.adminPassword ?? generatePassword();
  const admin = await createUser(db, {
    email: settings.adminEmail,
    username: 'admin',
    password,
    domainName: 'default',
    role: 'superadmin',
    fullName: 'Administrator',
    groupIds: [groupId],
    keypair: { accessKey: settings.adminAccessKey, secretKey: settings.adminSecretKey, isAdmin: true, rateLimit: 10000 },
  });
  const credentials = { email: admin.email, username: admin.username, password, accessKey: admin.accessKey, secretKey: admin.secretKey };
  mkdirSync(settings.dataDir, { recursive: true });
  const file = path.join(settings.dataDir, 'admin-credentials.json');
  writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  // `mode` applies only to a file this call creates: one left from an earlier database keeps its own mode.
  chmodSync(file, 0o600);
  return { created: true, credentials };
}
