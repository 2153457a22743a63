/**
 * A quota scope named directly (`user:<uuid>` or `project:<uuid>` on a storage host), as GraphQL's `quota_scope`,
 * `set_quota_scope` and `unset_quota_scope` name it; `POST /folders/_/quota` reaches the same scope through a
 * folder. One rule for both (CONTRACT §9.6):
 * - reading: whoever reaches a folder of the scope on that host (REST reaches it through one), its owner (user scope)
 *   or a member (project scope), and administrators of its domain;
 * - setting: the owner of a user scope, or an administrator of the scope's domain, holding `modify-vfolder` on the
 *   host. The limit is clamped to the owner's policy `max_quota_scope_size`; ≤ 0 means "the policy maximum".
 */
import { sql } from 'kysely';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { Problem, badRequest, notFound } from '../http/problem';
import { listFolders } from './list';
import { findVolume } from './hosts';
import { requireFolderHostPermission } from './host-permissions';
import { isProjectMember } from '../projects/membership';
import { scopeFigures, setScopeLimit, splitScope } from './quota';
import { toUuid } from './ids';
import { administers, type FolderRow } from './access';

export interface QuotaScopeRef {
  /** `user:<uuid>` or `project:<uuid>`. */
  id: string;
  kind: 'user' | 'project';
  ownerId: string;
  /** `<proxy>:<volume>` */
  host: string;
  /** The owner's domain (user) or the project's. */
  domainName: string;
  /** A superadmin's scope: domain admins have no authority over it (as over their folders). */
  ownerIsSuperadmin: boolean;
}

/** The scope of a folder, as REST's `/folders/_/quota` reaches it. */
export function quotaScopeOfFolder(folder: FolderRow): QuotaScopeRef {
  const [kind, ownerId] = splitScope(folder.quota_scope_id);
  return { id: folder.quota_scope_id, kind, ownerId, host: folder.host, domainName: folder.domain_name, ownerIsSuperadmin: folder.owner_role === 'superadmin' };
}

/** The scope and host, checked to exist: 404 for an unknown user, project or host. */
export async function resolveQuotaScope(app: App, scopeId: string, host: string): Promise<QuotaScopeRef> {
  if (!findVolume(app, host)) throw notFound('No such storage host.', `No storage host ${host}.`);
  const [kind, rawId] = scopeId.includes(':') ? splitScope(scopeId) : [null, ''];
  const ownerId = toUuid(rawId);
  if ((kind !== 'user' && kind !== 'project') || !ownerId) {
    throw badRequest('quota_scope_id must be user:<uuid> or project:<uuid>.', { quota_scope_id: 'invalid' });
  }
  const owner =
    kind === 'user'
      ? await app.db.selectFrom('users').select(['domain_name', 'role']).where('uuid', '=', ownerId).executeTakeFirst()
      : await app.db.selectFrom('groups').select(['domain_name', sql<string | null>`null`.as('role')]).where('id', '=', ownerId).executeTakeFirst();
  if (!owner) throw notFound('No such quota scope.', `No quota scope ${scopeId}.`);
  return { id: `${kind}:${ownerId}`, kind, ownerId, host, domainName: owner.domain_name, ownerIsSuperadmin: owner.role === 'superadmin' };
}

function ownsScope(caller: Principal, scope: QuotaScopeRef): boolean {
  return scope.kind === 'user' && scope.ownerId === caller.userId;
}

function administersScope(caller: Principal, scope: QuotaScopeRef): boolean {
  return administers(caller, scope.domainName) && (caller.role === 'superadmin' || !scope.ownerIsSuperadmin);
}

/** The scope's used bytes and limit, for whoever may read it (see the module comment); 404 for anyone else. */
export async function readQuotaScope(app: App, caller: Principal, scope: QuotaScopeRef): Promise<{ used_bytes: number; limit_bytes: number | null }> {
  const entitled =
    ownsScope(caller, scope) ||
    administersScope(caller, scope) ||
    (scope.kind === 'project' && (await isProjectMember(app, { userId: caller.userId, projectId: scope.ownerId }))) ||
    (await listFolders(app, caller, {})).some((f) => f.quota_scope_id === scope.id && f.host === scope.host);
  if (!entitled) throw notFound('No such quota scope.', `No quota scope ${scope.id} you can see.`);
  return scopeFigures(app, scope.id);
}

/** Sets the scope's limit (bytes; ≤ 0: the policy maximum) and answers the effective limit (null: unlimited). */
export async function writeQuotaScope(app: App, caller: Principal, scope: QuotaScopeRef, sizeBytes: number): Promise<number | null> {
  if (!ownsScope(caller, scope) && !administersScope(caller, scope)) {
    throw new Problem('generic-forbidden', 'Only the owner of the quota scope or an administrator may set its limit.');
  }
  const projectId = scope.kind === 'project' ? scope.ownerId : null;
  await requireFolderHostPermission(app, caller, { host: scope.host, group_id: projectId, domain_name: scope.domainName }, 'modify-vfolder');
  if (!Number.isFinite(sizeBytes)) throw badRequest('size_bytes must be a number of bytes.', { size_bytes: 'invalid size' });
  return setScopeLimit(app, scope.id, sizeBytes);
}
