/** §Virtual folders, sharing and cloning (CONTRACT §9.5, §9.6): invitations, shared folders, leave, clone. */
import { z } from 'zod';
import { route } from '../http/route';
import { bool, list } from '../http/params';
import { acceptInvitation, deleteInvitation, inviteToFolder, listInvitations, listSentInvitations, updateInvitation } from '../storage/sharing/invitations';
import { leaveFolder, listShared, shareFolder, unshareFolder, updateSharedPermission } from '../storage/sharing/shared';
import { cloneFolder } from '../storage/clone';
import { USAGE_MODES } from '../storage/create';

const permission = z.enum(['ro', 'rw', 'wd']);
const byName = z.object({ name: z.string().min(1) });
const invId = z.object({ inv_id: z.string().min(1) });

/** `perm` is the Backend.AI spelling of `permission`; either is accepted. */
function withPerm(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  if (out.permission === undefined && out.perm !== undefined) out.permission = out.perm;
  delete out.perm;
  return out;
}

export const folderSharingRoutes = [
  route({
    method: 'POST', path: '/folders/:name/invite', privilege: 'user', status: 'RUNNING',
    input: z.preprocess(withPerm, byName.extend({
      permission: permission.default('rw'),
      emails: list(z.string()).default([]),
      user_ids: list(z.string()).default([]),
    })),
    summary: 'Invite users to a user folder (its owner only)',
    response: '{"invited_ids":["email",…]}',
    handler: ({ app, principal, input }) => inviteToFolder(app, principal, input),
  }),
  route({
    method: 'GET', path: '/folders/invitations/list', privilege: 'user', status: 'FROZEN',
    summary: 'Pending invitations addressed to the caller',
    handler: ({ app, principal }) => listInvitations(app, principal),
  }),
  route({
    method: 'GET', path: ['/folders/invitations/list-sent', '/folders/invitations/list_sent'], privilege: 'user', status: 'FROZEN',
    summary: 'Pending invitations the caller sent',
    handler: ({ app, principal }) => listSentInvitations(app, principal),
  }),
  route({
    method: 'POST', path: '/folders/invitations/update/:inv_id', privilege: 'user', status: 'RUNNING',
    input: z.preprocess(withPerm, invId.extend({ permission })),
    summary: "Change a pending invitation's permission (its inviter only)",
    handler: ({ app, principal, input }) => updateInvitation(app, principal, input.inv_id, input.permission),
  }),
  route({
    method: 'POST', path: '/folders/invitations/accept', privilege: 'user', status: 'RUNNING', input: invId,
    summary: 'Accept an invitation: the folder becomes shared with the caller',
    handler: ({ app, principal, input }) => acceptInvitation(app, principal, input.inv_id),
  }),
  route({
    method: 'DELETE', path: '/folders/invitations/delete', privilege: 'user', status: 'RUNNING', input: invId,
    summary: 'Cancel (inviter) or reject (invitee) a pending invitation',
    handler: ({ app, principal, input }) => deleteInvitation(app, principal, input.inv_id),
  }),
  route({
    method: 'POST', path: '/folders/:name/share', privilege: 'user', status: 'RUNNING',
    input: z.preprocess(withPerm, byName.extend({ permission: permission.default('rw'), emails: list(z.string()) })),
    summary: "Share a project folder with members of its project (the folder's administrators)",
    response: '{"shared_emails":[…]}',
    handler: ({ app, principal, input }) => shareFolder(app, principal, input.name, input.permission, input.emails),
  }),
  ...(['POST', 'DELETE'] as const).map((method) =>
    route({
      method, path: '/folders/:name/unshare', privilege: 'user', status: 'RUNNING',
      input: byName.extend({ emails: list(z.string()) }),
      summary: 'Stop sharing a project folder with users',
      response: '{"unshared_emails":[…]}',
      handler: ({ app, principal, input }) => unshareFolder(app, principal, input.name, input.emails),
    }),
  ),
  route({
    method: 'GET', path: '/folders/_/shared', privilege: 'user', status: 'FROZEN', input: z.object({ vfolder_id: z.string().nullish() }),
    summary: 'Who the folders the caller manages are shared with',
    handler: ({ app, principal, input }) => listShared(app, principal, input.vfolder_id),
  }),
  route({
    method: 'POST', path: '/folders/_/shared', privilege: 'user', status: 'RUNNING',
    input: z.preprocess(withPerm, z.object({ vfolder: z.string().min(1), user: z.string().min(1), permission: permission.nullable() })),
    summary: "Change (or, with perm null, revoke) a user's permission on a shared folder",
    handler: ({ app, principal, input }) => updateSharedPermission(app, principal, input.vfolder, input.user, input.permission),
  }),
  route({
    method: 'POST', path: '/folders/:name/leave', privilege: 'user', status: 'RUNNING', input: byName.extend({ shared_user_uuid: z.string().nullish() }),
    summary: 'Leave a folder shared with the caller',
    handler: ({ app, principal, input }) => leaveFolder(app, principal, input.name, input.shared_user_uuid),
  }),
  route({
    method: 'POST', path: '/folders/:name/clone', privilege: 'user', status: 'RUNNING',
    input: byName.extend({
      target_name: z.string(),
      target_host: z.string().nullish(),
      cloneable: bool().default(false),
      usage_mode: z.enum(USAGE_MODES).nullish(),
      permission: permission.nullish(),
    }),
    summary: 'Clone a cloneable folder into a new user folder (a background task)',
    handler: ({ app, principal, input }) => cloneFolder(app, principal, input),
  }),
];
