'use client';
/** The manager's own state: its nodes and whether it is frozen (read every 10 s, set), and the announcement it shows. */
import { mutate } from 'swr';
import { managerSend, useManager } from '@/components/api/useManager';
import type { Announcement } from '@/components/frame/useAnnouncement';

export interface ManagerNode {
  id: string;
  num_proc: number;
  service_addr: string;
  heartbeat_timeout: number;
  active_sessions: number;
  status: string;
  version: string;
  api_version: [number, string];
}

export interface ManagerStatus {
  nodes: ManagerNode[];
  status: 'running' | 'frozen';
  active_sessions: number;
}

const STATUS_PATH = '/manager/status';
const ANNOUNCEMENT_PATH = '/manager/announcement';

export function useManagerStatus() {
  return useManager<ManagerStatus>(STATUS_PATH, { refreshInterval: 10_000 });
}

/** Freezes or unfreezes the manager; `forceKill` also ends the running sessions when freezing. */
export async function setManagerStatus(status: 'running' | 'frozen', forceKill: boolean): Promise<void> {
  await managerSend('PUT', STATUS_PATH, { status, force_kill: forceKill });
  await mutate(STATUS_PATH);
}

export async function saveAnnouncement(announcement: Announcement): Promise<void> {
  await managerSend('POST', ANNOUNCEMENT_PATH, announcement);
  await mutate(ANNOUNCEMENT_PATH);
}
