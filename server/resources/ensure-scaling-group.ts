/**
 * The scaling group a backend's sessions ask for (docker, slurm): created if missing, public, and offered to every
 * domain when created. An operator's later changes to it (made private, taken from a domain) are kept.
 */
import type { App } from '../app';
import { json } from '../db';

export async function ensureScalingGroup(app: App, name: string, description: string): Promise<void> {
  const created = await app.db
    .insertInto('scaling_groups')
    .values({ name, description, is_public: true, driver_opts: json({}), scheduler_opts: json({}) })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('name')
    .executeTakeFirst();
  const domains = created ? await app.db.selectFrom('domains').select('name').execute() : [];
  if (domains.length) {
    await app.db
      .insertInto('sgroups_for_domains')
      .values(domains.map((d) => ({ scaling_group: name, domain: d.name })))
      .onConflict((oc) => oc.columns(['scaling_group', 'domain']).doNothing())
      .execute();
  }
}
