'use client';
/** The manager's announcement (GET /manager/announcement); a manager without one answers 404, read as "none". */
import useSWR from 'swr';
import { managerFetch } from '@/components/api/useManager';
import { ManagerError } from '@/components/api/problem';

export interface Announcement {
  enabled: boolean;
  message: string;
}

const NONE: Announcement = { enabled: false, message: '' };

async function fetchAnnouncement(path: string): Promise<Announcement> {
  try {
    const answer = await managerFetch<Partial<Announcement>>(path);
    return { enabled: Boolean(answer?.enabled), message: typeof answer?.message === 'string' ? answer.message : '' };
  } catch (error) {
    if (error instanceof ManagerError && (error.status === 404 || error.status === 405)) return NONE;
    throw error;
  }
}

export function useAnnouncement() {
  return useSWR<Announcement, ManagerError>('/manager/announcement', fetchAnnouncement, { refreshInterval: 60_000 });
}
