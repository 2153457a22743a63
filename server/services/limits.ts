/** Per-service limits: the owner's user resource policy caps the sessions of one model service. */
import type { App } from '../app';
import { badRequest } from '../http/problem';

export const SERVICE_MAX_RETRIES = 5;

export async function maxSessionsPerService(app: App, userId: string): Promise<number> {
  const row = await app.db
    .selectFrom('users as u')
    .innerJoin('user_resource_policies as p', 'p.name', 'u.resource_policy')
    .select('p.max_session_count_per_model_session as max')
    .where('u.uuid', '=', userId)
    .executeTakeFirst();
  return row?.max ?? 0;
}

/** 400 unless 0 ≤ count ≤ the owner's per-service maximum. */
export async function checkSessionCount(app: App, userId: string, count: number, field: string): Promise<void> {
  if (!Number.isInteger(count) || count < 0) throw badRequest(`${field} must be a whole number ≥ 0.`, { [field]: 'must be ≥ 0' });
  const max = await maxSessionsPerService(app, userId);
  if (count > max) throw badRequest(`${field} may be at most ${max} under your resource policy.`, { [field]: `at most ${max}` });
}
