/**
 * Folder invitations (CONTRACT §5.3 InvitationState, §9.5). The owner of a user folder invites users by email (or
 * uuid) with a permission; the invitee accepts (a `vfolder_permissions` row is created, so the access check and
 * session mounts honour it from then on) or rejects; the inviter may change the permission or cancel while the
 * invitation is pending. Transitions: pending → accepted | rejected | canceled; nothing leaves those states.
 *
 * Visibility: an invitation exists only for its inviter and invitee; to anyone else every operation answers 404,
 * exactly as for an unknown id.
 */
import { randomUUID } from 'node:crypto';
import type { App } from '../../app';
import type { Principal } from '../../auth/principal';
import type { FolderPermission } from '../../db/schema';
import { Problem, badRequest, notFound } from '../../http/problem';
import { TRASHED, findFolder, requireStatus } from '../access';
import { nameTaken } from '../create';
import { requireFolderHostPermission } from '../host-permissions';
import { toHex32, toUuid } from '../ids';
import { isDotName } from '../names';

export interface InviteInput {
  name: string;
  permission: FolderPermission;
  emails: string[];
  user_ids: string[];
}

export interface InvitationShape {
  id: string;
  inviter: string;
  invitee: string;
  perm: FolderPermission;
  state: string;
  created_at: string;
  modified_at: string;
  vfolder_id: string;
  vfolder_name: string;
}

function invitationQuery(app: App) {
  return app.db
    .selectFrom('vfolder_invitations as i')
    .innerJoin('vfolders as v', 'v.id', 'i.vfolder_id')
    .innerJoin('users as a', 'a.uuid', 'i.inviter')
    .innerJoin('users as b', 'b.uuid', 'i.invitee')
    .select([
      'i.id', 'i.vfolder_id', 'i.inviter', 'i.invitee', 'i.permission', 'i.state', 'i.created_at', 'i.modified_at',
      'v.name as vfolder_name', 'v.status as vfolder_status', 'a.email as inviter_email', 'b.email as invitee_email',
    ]);
}

type InvitationRow = Awaited<ReturnType<ReturnType<typeof invitationQuery>['executeTakeFirstOrThrow']>>;

function shapeOf(row: InvitationRow): InvitationShape {
  return {
    id: row.id,
    inviter: row.inviter_email,
    invitee: row.invitee_email,
    perm: row.permission,
    state: row.state,
    created_at: row.created_at.toISOString(),
    modified_at: row.modified_at.toISOString(),
    vfolder_id: toHex32(row.vfolder_id),
    vfolder_name: row.vfolder_name,
  };
}

/** POST /folders/{name}/invite → `{"invited_ids": [emails newly invited]}`. */
export async function inviteToFolder(app: App, caller: Principal, input: InviteInput): Promise<{ invited_ids: string[] }> {
  const access = await findFolder(app, caller, input.name);
  const folder = access.folder;
  if (isDotName(folder.name)) throw new Problem('generic-forbidden', 'Dot-prefixed folders cannot be shared.');
  if (folder.ownership_type !== 'user') throw new Problem('generic-forbidden', 'Project folders are not shared by invitation; an administrator shares them with POST /folders/{name}/share.');
  if (access.via !== 'owner') throw new Problem('generic-forbidden', 'Only the owner of the folder may invite others to it.');
  requireStatus(folder, 'updatable');
  await requireFolderHostPermission(app, caller, folder, 'invite-others');

  const emails = [...new Set(input.emails.map((e) => e.trim()).filter(Boolean))];
  const ids = [...new Set(input.user_ids.map((id) => id.trim()).filter(Boolean))];
  if (!emails.length && !ids.length) throw badRequest('emails (or user_ids) must name at least one user.', { emails: 'empty' });
  const badIds = ids.filter((id) => !toUuid(id));
  if (badIds.length) throw badRequest(`user_ids: not user ids: ${badIds.join(', ')}`, { user_ids: 'must be UUIDs' });
  const uuids = ids.map((id) => toUuid(id)!);
  const users = await app.db
    .selectFrom('users')
    .select(['uuid', 'email'])
    .where((eb) => eb.or([...(emails.length ? [eb('email', 'in', emails)] : []), ...(uuids.length ? [eb('uuid', 'in', uuids)] : [])]))
    .where('status', '!=', 'deleted')
    .execute();
  const missing = [...emails.filter((e) => !users.some((u) => u.email === e)), ...uuids.filter((id) => !users.some((u) => u.uuid === id))];
  if (missing.length) throw new Problem('object-not-found', `No such user: ${missing.join(', ')}.`, { missing }, { title: 'No such user.' });
  if (users.some((u) => u.uuid === caller.userId)) throw badRequest('You cannot invite yourself to your own folder.', { emails: 'includes the owner' });

  const shared = await app.db.selectFrom('vfolder_permissions').select('user_uuid').where('vfolder_id', '=', folder.id).where('user_uuid', 'in', users.map((u) => u.uuid)).execute();
  if (shared.length) {
    const already = users.filter((u) => shared.some((s) => s.user_uuid === u.uuid)).map((u) => u.email);
    throw new Problem('vfolder-already-exists', `The folder is already shared with ${already.join(', ')}.`, { emails: already });
  }
  const invited: string[] = [];
  await app.db.transaction().execute(async (trx) => {
    const pending = await trx.selectFrom('vfolder_invitations').select('invitee').where('vfolder_id', '=', folder.id).where('state', '=', 'pending').execute();
    const now = new Date();
    for (const user of users) {
      if (pending.some((p) => p.invitee === user.uuid)) continue;
      await trx
        .insertInto('vfolder_invitations')
        .values({ id: randomUUID(), vfolder_id: folder.id, inviter: caller.userId, invitee: user.uuid, permission: input.permission, state: 'pending', created_at: now, modified_at: now })
        .execute();
      invited.push(user.email);
    }
  });
  return { invited_ids: invited };
}

function live(query: ReturnType<typeof invitationQuery>) {
  return query.where('i.state', '=', 'pending').where('v.status', 'not in', [...TRASHED]);
}

/** GET /folders/invitations/list: pending invitations addressed to the caller. */
export async function listInvitations(app: App, caller: Principal): Promise<{ invitations: InvitationShape[] }> {
  const rows = await live(invitationQuery(app)).where('i.invitee', '=', caller.userId).orderBy('i.created_at').execute();
  return { invitations: rows.map(shapeOf) };
}

/** GET /folders/invitations/list-sent: pending invitations the caller sent. */
export async function listSentInvitations(app: App, caller: Principal): Promise<{ invitations: InvitationShape[] }> {
  const rows = await live(invitationQuery(app)).where('i.inviter', '=', caller.userId).orderBy('i.created_at').execute();
  return { invitations: rows.map(shapeOf) };
}

/** The invitation as the caller may see it (its inviter or invitee), or 404. */
async function invitationFor(app: App, caller: Principal, invId: string): Promise<InvitationRow> {
  const id = toUuid(invId);
  const row = id ? await invitationQuery(app).where('i.id', '=', id).executeTakeFirst() : undefined;
  if (!row || (row.inviter !== caller.userId && row.invitee !== caller.userId)) throw notFound('No such vfolder invitation.', `No invitation ${invId}.`);
  return row;
}

function requirePending(row: InvitationRow): void {
  if (row.state !== 'pending') throw new Problem('generic-bad-request', `The invitation is ${row.state}; only pending invitations can change.`, { state: row.state });
}

/** Changes an invitation only while it is still pending (a concurrent accept, cancel or reject wins): 400 if not. */
async function changePending(
  db: Pick<App['db'], 'updateTable'>,
  id: string,
  changes: { permission?: FolderPermission; state?: 'accepted' | 'canceled' | 'rejected' },
  now = new Date(),
): Promise<void> {
  const updated = await db
    .updateTable('vfolder_invitations')
    .set({ ...changes, modified_at: now })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  if (!Number(updated.numUpdatedRows)) throw new Problem('generic-bad-request', 'The invitation is no longer pending.');
}

/** POST /folders/invitations/update/{inv_id} {perm}: the inviter changes a pending invitation's permission. */
export async function updateInvitation(app: App, caller: Principal, invId: string, permission: FolderPermission): Promise<{ msg: string }> {
  const row = await invitationFor(app, caller, invId);
  if (row.inviter !== caller.userId) throw new Problem('generic-forbidden', 'Only the inviter may change an invitation.');
  requirePending(row);
  await changePending(app.db, row.id, { permission });
  return { msg: `vfolder invitation updated: ${row.id}.` };
}

/** POST /folders/invitations/accept {inv_id}: the invitee gets the folder with the invited permission. */
export async function acceptInvitation(app: App, caller: Principal, invId: string): Promise<Record<string, never>> {
  const row = await invitationFor(app, caller, invId);
  if (row.invitee !== caller.userId) throw notFound('No such vfolder invitation.', `No invitation ${invId} addressed to you.`);
  requirePending(row);
  if (TRASHED.includes(row.vfolder_status) || row.vfolder_status === 'delete-ongoing') throw notFound('No such virtual folder.', 'The invited folder has been deleted.');
  if (await nameTaken(app, caller, row.vfolder_name)) {
    throw new Problem('vfolder-already-exists', `You already have a folder named "${row.vfolder_name}".`, { name: row.vfolder_name });
  }
  await app.db.transaction().execute(async (trx) => {
    const now = new Date();
    await changePending(trx, row.id, { state: 'accepted' }, now);
    // The permission of the invitation as it is now (the inviter may have updated it).
    const current = await trx.selectFrom('vfolder_invitations').select('permission').where('id', '=', row.id).executeTakeFirstOrThrow();
    await trx
      .insertInto('vfolder_permissions')
      .values({ vfolder_id: row.vfolder_id, user_uuid: caller.userId, permission: current.permission, created_at: now })
      .onConflict((oc) => oc.columns(['vfolder_id', 'user_uuid']).doUpdateSet({ permission: current.permission }))
      .execute();
  });
  return {};
}

/** DELETE /folders/invitations/delete {inv_id}: the inviter cancels, the invitee rejects. */
export async function deleteInvitation(app: App, caller: Principal, invId: string): Promise<Record<string, never>> {
  const row = await invitationFor(app, caller, invId);
  requirePending(row);
  const state = row.inviter === caller.userId ? 'canceled' : 'rejected';
  await changePending(app.db, row.id, { state });
  return {};
}
