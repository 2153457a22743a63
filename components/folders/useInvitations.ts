'use client';
/** Folder invitations: the ones addressed to you (to accept or decline) and the ones you sent (to cancel). */
import { managerSend, useManager } from '@/components/api/useManager';
import type { Permission } from './useFolders';

export interface Invitation {
  id: string;
  inviter: string;
  invitee: string;
  perm: Permission;
  state: string;
  created_at: string;
  vfolder_id: string;
  vfolder_name: string;
}

export function useInvitations() {
  return useManager<{ invitations: Invitation[] }>('/folders/invitations/list', { refreshInterval: 15_000 });
}

/** Pending invitations the caller sent, until each is accepted, declined or cancelled. */
export function useSentInvitations() {
  return useManager<{ invitations: Invitation[] }>('/folders/invitations/list-sent', { refreshInterval: 15_000 });
}

export const inviteToFolder = (folderId: string, perm: Permission, emails: string[]) =>
  managerSend<{ invited_ids: string[] }>('POST', `/folders/${encodeURIComponent(folderId)}/invite`, { perm, emails });
export const acceptInvitation = (invId: string) => managerSend('POST', '/folders/invitations/accept', { inv_id: invId });
/** The one call for both sides: the invitee declines, the inviter cancels. */
export const deleteInvitation = (invId: string) => managerSend('DELETE', '/folders/invitations/delete', { inv_id: invId });
