/**
 * What a submission looks up besides its own request (its image, project and membership, whether the scaling
 * group is open to it, the keypair policy's cluster limit, the scaling group's slot types, the templates it is
 * made from) changes rarely and
 * is read by every submission. Answers are kept while `lookup_generation` stands still: the database moves it in
 * the transaction of every change to those tables (migration 0018), so one query per submission tells whether
 * anything may have changed, on this replica or another, and a committed change is seen by the next submission.
 */
import type { App } from '../app';
import type { Image } from '../db/schema';
import { resolveImage } from '../images/catalog';
import { isProjectMember } from '../projects/membership';
import { activeSlots, type SlotType } from '../resources/slots';

/** A bound on what is kept (distinct images, projects, members…); past it everything is looked up again. */
const MAX_ENTRIES = 10_000;

export class SubmissionLookups {
  private generation = -1;
  private entries = new Map<string, Promise<unknown>>();

  constructor(private readonly app: Pick<App, 'db'>) {}

  /** Reads the generation; drops every answer when it moved. Call once per submission, before the lookups. */
  async refresh(): Promise<void> {
    const row = await this.app.db.selectFrom('lookup_generation').select('n').where('id', '=', 1).executeTakeFirst();
    const generation = Number(row?.n ?? -1);
    if (generation !== this.generation || this.entries.size > MAX_ENTRIES) {
      this.generation = generation;
      this.entries = new Map();
    }
  }

  /**
   * The answer kept under `key`, or `load`'s (a failed load is not kept: the next submission asks again). `load`
   * may read only tables that move lookup_generation (migrations 0018, 0020); callers must not change the answer.
   */
  remember<T>(key: string, load: () => Promise<T>): Promise<T> {
    const entries = this.entries;
    let hit = entries.get(key) as Promise<T> | undefined;
    if (!hit) {
      hit = load();
      entries.set(key, hit);
      hit.catch(() => entries.get(key) === hit && entries.delete(key));
    }
    return hit;
  }

  /** An active image by alias, name or id (shared: callers must not change it). */
  image(app: App, reference: string): Promise<Image> {
    return this.remember(`image\0${reference}`, () => resolveImage(app, reference));
  }

  /** An active project of the domain by id or name. */
  project(domainName: string, reference: string): Promise<{ id: string; name: string } | undefined> {
    return this.remember(`project\0${domainName}\0${reference}`, () =>
      this.app.db
        .selectFrom('groups')
        .select(['id', 'name'])
        .where('domain_name', '=', domainName)
        .where((eb) => (/^[0-9a-f-]{36}$/i.test(reference) ? eb.or([eb('id', '=', reference), eb('name', '=', reference)]) : eb('name', '=', reference)))
        .where('is_active', '=', true)
        .executeTakeFirst(),
    );
  }

  member(userId: string, projectId: string): Promise<boolean> {
    return this.remember(`member\0${userId}\0${projectId}`, () => isProjectMember(this.app, { userId, projectId }));
  }

  /** Whether the scaling group is active and open to the domain or to the project. */
  scalingGroupAllowed(scalingGroup: string, domainName: string, projectId: string): Promise<boolean> {
    return this.remember(`sgroup\0${scalingGroup}\0${domainName}\0${projectId}`, async () => {
      const row = await this.app.db
        .selectFrom('scaling_groups as s')
        .select('s.name')
        .where('s.name', '=', scalingGroup)
        .where('s.is_active', '=', true)
        .where((eb) =>
          eb.or([
            eb.exists(eb.selectFrom('sgroups_for_domains').select('domain').whereRef('scaling_group', '=', 's.name').where('domain', '=', domainName)),
            eb.exists(eb.selectFrom('sgroups_for_groups').select('group_id').whereRef('scaling_group', '=', 's.name').where('group_id', '=', projectId)),
          ]),
        )
        .executeTakeFirst();
      return row !== undefined;
    });
  }

  /** The keypair resource policy's max_containers_per_session, undefined when there is no such policy. */
  maxContainers(policyName: string): Promise<number | undefined> {
    return this.remember(`policy\0${policyName}`, async () => {
      const row = await this.app.db.selectFrom('keypair_resource_policies').select('max_containers_per_session').where('name', '=', policyName).executeTakeFirst();
      return row?.max_containers_per_session;
    });
  }

  /** The slot types the scaling group's alive agents report (shared: callers must not change it). */
  slotTypes(app: App, scalingGroup: string): Promise<Record<string, SlotType>> {
    return this.remember(`slots\0${scalingGroup}`, () => activeSlots(app, scalingGroup));
  }
}

const byApp = new WeakMap<object, SubmissionLookups>();

/** The submission lookups of this manager. */
export function submissionLookups(app: App): SubmissionLookups {
  let lookups = byApp.get(app);
  if (!lookups) byApp.set(app, (lookups = new SubmissionLookups(app)));
  return lookups;
}
