/**
 * The three resource-policy kinds (keypair, user, project), one table each: how a policy is found, what refers to
 * it, and the checked column values of each kind's create and modify inputs.
 */
import type { Updateable } from 'kysely';
import type { App } from '../app';
import { json } from '../db';
import type { KeypairResourcePolicyTable } from '../db/schema';
import { badRequest as invalid } from '../http/problem';
import { given, hostPermissions, nonNegative, normaliseSlots, oneOf } from '../admin/values';

export type PolicyTable = 'keypair_resource_policies' | 'user_resource_policies' | 'project_resource_policies';

/** Where each policy kind is referenced, for a clear refusal before deleting one in use. */
export const USED_BY = {
  keypair_resource_policies: { table: 'keypairs', column: 'resource_policy', what: 'keypairs' },
  user_resource_policies: { table: 'users', column: 'resource_policy', what: 'users' },
  project_resource_policies: { table: 'groups', column: 'resource_policy', what: 'projects' },
} as const;

const KIND = { keypair_resource_policies: 'keypair', user_resource_policies: 'user', project_resource_policies: 'project' } as const;

/** 400 unless a policy of this kind is named `name`: what a keypair, user or project is given is checked here. */
export async function checkPolicyExists(app: App, table: PolicyTable, name: string): Promise<void> {
  if (!(await loadPolicy(app, table, name))) throw invalid(`No such ${KIND[table]} resource policy: ${name}`);
}

export function loadPolicy(app: App, table: PolicyTable, name: string) {
  return app.db.selectFrom(table).selectAll().where('name', '=', name).executeTakeFirst();
}

export function counts<T extends Record<string, unknown>>(props: T, fields: (keyof T & string)[]): Partial<T> {
  const out: Partial<T> = {};
  for (const field of fields) {
    const value = props[field];
    if (value === undefined) continue;
    if (value === null) throw invalid(`${field} must not be null.`);
    nonNegative(value as number, field);
    out[field] = value;
  }
  return out;
}

export interface KeypairPolicyProps extends Record<string, unknown> {
  default_for_unspecified?: string | null;
  total_resource_slots?: unknown;
  allowed_vfolder_hosts?: unknown;
  max_session_lifetime?: number | null;
  max_concurrent_sessions?: number | null;
  max_concurrent_sftp_sessions?: number | null;
  max_containers_per_session?: number | null;
  idle_timeout?: number | null;
  max_pending_session_count?: number | null;
}

export const KEYPAIR_POLICY_COUNTS = ['max_session_lifetime', 'max_concurrent_sessions', 'max_concurrent_sftp_sessions', 'max_containers_per_session', 'idle_timeout'];

export function keypairPolicyValues(raw: KeypairPolicyProps): Updateable<KeypairResourcePolicyTable> {
  const props = given(raw);
  const values: Updateable<KeypairResourcePolicyTable> = counts(props, KEYPAIR_POLICY_COUNTS) as Updateable<KeypairResourcePolicyTable>;
  if (props.default_for_unspecified) values.default_for_unspecified = oneOf(props.default_for_unspecified.toUpperCase(), ['LIMITED', 'UNLIMITED'], 'default_for_unspecified');
  if (props.total_resource_slots !== undefined) values.total_resource_slots = json(normaliseSlots(props.total_resource_slots, 'total_resource_slots'));
  if (props.allowed_vfolder_hosts !== undefined) values.allowed_vfolder_hosts = json(hostPermissions(props.allowed_vfolder_hosts, 'allowed_vfolder_hosts'));
  if (props.max_pending_session_count !== undefined) {
    nonNegative(props.max_pending_session_count, 'max_pending_session_count');
    values.max_pending_session_count = props.max_pending_session_count;
  }
  return values;
}

export const USER_POLICY_COUNTS = ['max_vfolder_count', 'max_quota_scope_size', 'max_session_count_per_model_session', 'max_customized_image_count'];
export const PROJECT_POLICY_COUNTS = ['max_vfolder_count', 'max_quota_scope_size', 'max_network_count'];

/** The column values a create or modify of `table` sets from its input. */
export function policyValues(table: PolicyTable, props: Record<string, unknown>): Record<string, unknown> {
  if (table === 'keypair_resource_policies') return keypairPolicyValues(props as KeypairPolicyProps);
  return counts(given(props), table === 'user_resource_policies' ? USER_POLICY_COUNTS : PROJECT_POLICY_COUNTS);
}
