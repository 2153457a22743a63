'use client';
/**
 * Resource policies through GraphQL: keypair policies (session limits), user and project policies (folder limits),
 * who uses each, and their mutations. Keypairs are counted by their owners' emails, never by access key (keys
 * stay on the server); applying a policy to a keypair goes through /api/admin/keypairs.
 */
import { graphqlMutation, revalidateGraphql, useGraphql } from '@/components/api/graphql';

export interface KeypairPolicy {
  name: string;
  total_resource_slots: string | null;
  idle_timeout: number | null;
  max_session_lifetime: number | null;
  max_concurrent_sessions: number | null;
  max_containers_per_session: number | null;
  max_pending_session_count: number | null;
}

export interface FolderPolicy {
  name: string;
  max_vfolder_count: number | null;
  max_quota_scope_size: number | null;
}

export type PolicyKind = 'keypair' | 'user' | 'project';

const KEYPAIR_FIELDS = 'name total_resource_slots idle_timeout max_session_lifetime max_concurrent_sessions max_containers_per_session max_pending_session_count';

/** Every policy of each kind, with the keypairs (owner emails), users and projects that use them. */
const QUERY = `{
  keypair_resource_policies { ${KEYPAIR_FIELDS} }
  user_resource_policies { name max_vfolder_count max_quota_scope_size }
  project_resource_policies { name max_vfolder_count max_quota_scope_size }
  keypairs { user_id resource_policy }
  users { email resource_policy }
  groups { name resource_policy }
}`;

interface PolicyData {
  keypair_resource_policies: KeypairPolicy[] | null;
  user_resource_policies: FolderPolicy[] | null;
  project_resource_policies: FolderPolicy[] | null;
  keypairs: { user_id: string; resource_policy: string }[] | null;
  users: { email: string; resource_policy: string }[] | null;
  groups: { name: string; resource_policy: string | null }[] | null;
}

export interface Policies {
  keypair: KeypairPolicy[];
  user: FolderPolicy[];
  project: FolderPolicy[];
  /** Who uses a policy: kind → policy name → owner emails (keypairs), emails (users) or project names. */
  users: Record<PolicyKind, Record<string, string[]>>;
}

function byPolicy<T>(rows: T[] | null | undefined, policy: (row: T) => string | null, who: (row: T) => string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const row of rows ?? []) {
    const name = policy(row);
    if (name) (out[name] ??= []).push(who(row));
  }
  return out;
}

export function usePolicies() {
  const swr = useGraphql<PolicyData>(QUERY);
  const data: Policies | undefined = swr.data && {
    keypair: swr.data.keypair_resource_policies ?? [],
    user: swr.data.user_resource_policies ?? [],
    project: swr.data.project_resource_policies ?? [],
    users: {
      keypair: byPolicy(swr.data.keypairs, (k) => k.resource_policy, (k) => k.user_id),
      user: byPolicy(swr.data.users, (u) => u.resource_policy, (u) => u.email),
      project: byPolicy(swr.data.groups, (g) => g.resource_policy, (g) => g.name),
    },
  };
  return { data, error: swr.error };
}

export interface KeypairPolicyInput {
  total_resource_slots: string;
  idle_timeout: number;
  max_session_lifetime: number;
  max_concurrent_sessions: number;
  max_containers_per_session: number;
  max_pending_session_count: number;
}

const TYPE_NAME: Record<PolicyKind, string> = { keypair: 'KeyPair', user: 'User', project: 'Project' };

async function refresh(): Promise<void> {
  await revalidateGraphql('resource_polic');
}

export async function savePolicy(kind: PolicyKind, mode: 'create' | 'modify', name: string, props: Record<string, unknown>): Promise<void> {
  const field = `${mode}_${kind}_resource_policy`;
  const input = `${mode === 'create' ? 'Create' : 'Modify'}${TYPE_NAME[kind]}ResourcePolicyInput`;
  await graphqlMutation(field, `mutation($name: String!, $props: ${input}!) { ${field}(name: $name, props: $props) { ok msg } }`, { name, props });
  await refresh();
}

export async function deletePolicy(kind: PolicyKind, name: string): Promise<void> {
  const field = `delete_${kind}_resource_policy`;
  await graphqlMutation(field, `mutation($name: String!) { ${field}(name: $name) { ok msg } }`, { name });
  await refresh();
}

/** Only the keypair policies' names, fetched while `enabled` (while a dialog that offers them is open). */
export function useKeypairPolicyNames(enabled: boolean) {
  return useGraphql<{ keypair_resource_policies: { name: string }[] | null }>(enabled ? '{ keypair_resource_policies { name } }' : null);
}
