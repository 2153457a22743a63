/** A scaling group's stored row, and the checked column values of its create and modify inputs. */
import type { Updateable } from 'kysely';
import type { App } from '../app';
import { noSuch } from '../auth/privilege';
import { json } from '../db';
import type { ScalingGroup, ScalingGroupTable } from '../db/schema';
import { given, jsonObject, oneOf } from '../admin/values';

const SCHEDULERS = ['fifo', 'lifo', 'drf'] as const;

export interface ScalingGroupProps {
  description?: string | null;
  is_active?: boolean | null;
  is_public?: boolean | null;
  wsproxy_addr?: string | null;
  wsproxy_api_token?: string | null;
  driver?: string | null;
  driver_opts?: unknown;
  scheduler?: string | null;
  scheduler_opts?: unknown;
  use_host_network?: boolean | null;
}

export function loadScalingGroup(app: App, name: string): Promise<ScalingGroup | undefined> {
  return app.db.selectFrom('scaling_groups').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function existingScalingGroup(app: App, name: string): Promise<ScalingGroup> {
  const found = await loadScalingGroup(app, name);
  if (!found) throw noSuch('scaling group');
  return found;
}

export function scalingGroupValues(raw: ScalingGroupProps): Updateable<ScalingGroupTable> {
  const props = given(raw);
  const set: Updateable<ScalingGroupTable> = {};
  if (props.description !== undefined) set.description = props.description ?? '';
  if (props.is_active !== undefined && props.is_active !== null) set.is_active = props.is_active;
  if (props.is_public !== undefined && props.is_public !== null) set.is_public = props.is_public;
  if (props.wsproxy_addr !== undefined) set.wsproxy_addr = props.wsproxy_addr;
  if (props.wsproxy_api_token !== undefined) set.wsproxy_api_token = props.wsproxy_api_token;
  if (props.driver) set.driver = props.driver;
  if (props.driver_opts !== undefined) set.driver_opts = json(jsonObject(props.driver_opts, 'driver_opts'));
  if (props.scheduler) set.scheduler = oneOf(props.scheduler.toLowerCase(), SCHEDULERS, 'scheduler');
  if (props.scheduler_opts !== undefined) set.scheduler_opts = json(jsonObject(props.scheduler_opts, 'scheduler_opts'));
  if (props.use_host_network !== undefined && props.use_host_network !== null) set.use_host_network = props.use_host_network;
  return set;
}
