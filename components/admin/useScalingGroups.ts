'use client';
/** Scaling groups through GraphQL: the full list for their page, and only the names for pickers. */
import { useGraphql } from '@/components/api/graphql';

export interface ScalingGroup {
  name: string;
  description: string | null;
  is_active: boolean;
  is_public: boolean;
  created_at: string | null;
  driver: string | null;
  scheduler: string | null;
  use_host_network: boolean | null;
  wsproxy_addr: string | null;
}

/** Never wsproxy_api_token: it is a credential. */
const QUERY = '{ scaling_groups { name description is_active is_public created_at driver scheduler use_host_network wsproxy_addr } }';

const NAMES_QUERY = '{ scaling_groups { name } }';

export function useScalingGroups() {
  return useGraphql<{ scaling_groups: ScalingGroup[] | null }>(QUERY);
}

/** The names, fetched only while `enabled` (e.g. while a dialog that offers them is open). */
export function useScalingGroupNames(enabled: boolean) {
  return useGraphql<{ scaling_groups: { name: string }[] | null }>(enabled ? NAMES_QUERY : null, undefined, { revalidateOnFocus: false });
}
