'use client';
/** The summary page's data: the API version the manager speaks and the caller's roles. */
import { useManager } from '@/components/api/useManager';

export interface VersionInfo {
  version: string;
  manager: string;
}

export interface RoleInfo {
  global_role: string;
  domain_role: string;
  group_role: string | null;
}

export function useApiVersion() {
  return useManager<VersionInfo>('/v2');
}

export function useRoles() {
  return useManager<RoleInfo>('/auth/role');
}
