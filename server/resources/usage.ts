/**
 * What a keypair, a project and a domain currently hold: the slots of their sessions that count against quotas
 * (every status except PENDING, TERMINATING, TERMINATED and CANCELLED, CONTRACT §5.2). Every quota check reads
 * usage through this one function, so session accounting has a single place to live.
 */
import type { App } from '../app';
import { COUNTING_QUOTA } from '../sessions/states';
import { addAmounts, toAmounts, type Amounts } from './slots';

export interface UsageScope {
  accessKey: string;
  projectId: string;
  domainName: string;
}

export interface ScopedUsage {
  keypair: Amounts;
  project: Amounts;
  domain: Amounts;
}

export async function quotaUsage(app: App, scope: UsageScope): Promise<ScopedUsage> {
  const rows = await app.db
    .selectFrom('sessions')
    .select(['access_key', 'group_id', 'domain_name', 'occupying_slots'])
    .where('status', 'in', [...COUNTING_QUOTA])
    .where((eb) => eb.or([eb('access_key', '=', scope.accessKey), eb('group_id', '=', scope.projectId), eb('domain_name', '=', scope.domainName)]))
    .execute();
  const usage: ScopedUsage = { keypair: {}, project: {}, domain: {} };
  for (const row of rows) {
    const slots = toAmounts(row.occupying_slots);
    if (row.access_key === scope.accessKey) addAmounts(usage.keypair, slots);
    if (row.group_id === scope.projectId) addAmounts(usage.project, slots);
    if (row.domain_name === scope.domainName) addAmounts(usage.domain, slots);
  }
  return usage;
}
