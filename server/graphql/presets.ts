/** Resource presets: readable by every user; superadmins create, modify and delete them. */
import { randomUUID } from 'node:crypto';
import type { Updateable } from 'kysely';
import { json } from '../db';
import type { ResourcePreset, ResourcePresetTable } from '../db/schema';
import { Problem } from '../http/problem';
import { dbOf, given, invalid, mutation, notFound, requireSuperadmin, type GqlContext, type ResolverMap } from './context';
import { checkName, normaliseSlots, parseBinarySize } from '../admin/values';

export const presetTypeDefs = /* GraphQL */ `
  type ResourcePreset {
    id: UUID
    name: String
    resource_slots: JSONString
    shared_memory: BigInt
    scaling_group_name: String
  }

  input CreateResourcePresetInput {
    resource_slots: JSONString!
    "Bytes, or a size with a binary suffix such as 64m."
    shared_memory: String
    scaling_group_name: String
  }

  input ModifyResourcePresetInput {
    name: String
    resource_slots: JSONString
    shared_memory: String
    scaling_group_name: String
  }

  type CreateResourcePreset { ok: Boolean, msg: String, resource_preset: ResourcePreset }
  type ModifyResourcePreset { ok: Boolean, msg: String, resource_preset: ResourcePreset }
  type DeleteResourcePreset { ok: Boolean, msg: String, resource_preset: ResourcePreset }

  extend type Query {
    resource_preset(name: String, id: UUID): ResourcePreset
    resource_preset_by_id(id: UUID!): ResourcePreset
    resource_presets(scaling_group_name: String): [ResourcePreset]
  }

  extend type Mutation {
    create_resource_preset(name: String!, props: CreateResourcePresetInput!): CreateResourcePreset
    "Names a preset by id, or by name when that name is unique."
    modify_resource_preset(name: String, id: UUID, props: ModifyResourcePresetInput!): ModifyResourcePreset
    delete_resource_preset(name: String, id: UUID): DeleteResourcePreset
  }
`;

function presetsFrom(ctx: GqlContext) {
  return dbOf(ctx).selectFrom('resource_presets').selectAll();
}

/** A preset by id, or by name (global presets first). */
async function findPreset(ctx: GqlContext, args: { name?: string | null; id?: string | null }): Promise<ResourcePreset | undefined> {
  if (args.id) return presetsFrom(ctx).where('id', '=', args.id).executeTakeFirst();
  if (!args.name) return undefined;
  const rows = await presetsFrom(ctx).where('name', '=', args.name).execute();
  return rows.find((r) => r.scaling_group_name === null) ?? rows[0];
}

/** The preset a mutation targets: by id, or by a name that names exactly one. */
async function targetPreset(ctx: GqlContext, args: { name?: string | null; id?: string | null }): Promise<ResourcePreset> {
  if (!args.id && !args.name) throw invalid('Give the preset name or id.');
  if (!args.id) {
    const rows = await presetsFrom(ctx).where('name', '=', args.name!).execute();
    if (rows.length > 1) throw invalid(`Several presets are named ${args.name}; give the id.`);
  }
  const preset = await findPreset(ctx, args);
  if (!preset) throw notFound('resource preset');
  return preset;
}

async function checkUnique(ctx: GqlContext, name: string, scalingGroup: string | null, except?: string): Promise<void> {
  let q = presetsFrom(ctx).where('name', '=', name);
  q = scalingGroup === null ? q.where('scaling_group_name', 'is', null) : q.where('scaling_group_name', '=', scalingGroup);
  if (except) q = q.where('id', '<>', except);
  if (await q.executeTakeFirst()) throw new Problem('generic-bad-request', `Resource preset ${name} already exists.`);
}

async function checkScalingGroup(ctx: GqlContext, name: string | null): Promise<void> {
  if (name === null) return;
  const found = await dbOf(ctx).selectFrom('scaling_groups').select('name').where('name', '=', name).executeTakeFirst();
  if (!found) throw invalid(`No such scaling group: ${name}`);
}

function sharedMemory(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const bytes = parseBinarySize(value);
  if (bytes === null) throw invalid('shared_memory must be a byte size such as 1073741824 or 1g.');
  return bytes;
}

interface PresetProps {
  name?: string | null;
  resource_slots?: unknown;
  shared_memory?: string | null;
  scaling_group_name?: string | null;
}

export const presetResolvers: ResolverMap = {
  Query: {
    resource_preset: async (_root, args: { name?: string | null; id?: string | null }, ctx) => (await findPreset(ctx, args)) ?? null,
    resource_preset_by_id: async (_root, args: { id: string }, ctx) => (await findPreset(ctx, { id: args.id })) ?? null,
    resource_presets: (_root, args: { scaling_group_name?: string | null }, ctx) => {
      let q = presetsFrom(ctx);
      if (args.scaling_group_name) q = q.where('scaling_group_name', '=', args.scaling_group_name);
      return q.orderBy('name').orderBy('id').execute();
    },
  },
  Mutation: {
    create_resource_preset: mutation(async (args: { name: string; props: PresetProps }, ctx) => {
      requireSuperadmin(ctx);
      const name = checkName(args.name, 'resource preset');
      const slots = normaliseSlots(args.props.resource_slots, 'resource_slots');
      if (!Object.keys(slots).length) throw invalid('resource_slots must name at least one slot.');
      const scalingGroup = args.props.scaling_group_name ?? null;
      await checkScalingGroup(ctx, scalingGroup);
      await checkUnique(ctx, name, scalingGroup);
      const id = randomUUID();
      await dbOf(ctx)
        .insertInto('resource_presets')
        .values({ id, name, resource_slots: json(slots), shared_memory: sharedMemory(args.props.shared_memory), scaling_group_name: scalingGroup })
        .execute();
      return { resource_preset: await findPreset(ctx, { id }) };
    }),

    modify_resource_preset: mutation(async (args: { name?: string | null; id?: string | null; props: PresetProps }, ctx) => {
      requireSuperadmin(ctx);
      const preset = await targetPreset(ctx, args);
      const props = given(args.props);
      const set: Updateable<ResourcePresetTable> = {};
      if (props.name) set.name = checkName(props.name, 'resource preset');
      if (props.resource_slots !== undefined && props.resource_slots !== null) {
        const slots = normaliseSlots(props.resource_slots, 'resource_slots');
        if (!Object.keys(slots).length) throw invalid('resource_slots must name at least one slot.');
        set.resource_slots = json(slots);
      }
      if (props.shared_memory !== undefined) set.shared_memory = sharedMemory(props.shared_memory);
      if (props.scaling_group_name !== undefined) {
        await checkScalingGroup(ctx, props.scaling_group_name);
        set.scaling_group_name = props.scaling_group_name;
      }
      await checkUnique(ctx, set.name ?? preset.name, set.scaling_group_name !== undefined ? set.scaling_group_name : preset.scaling_group_name, preset.id);
      if (Object.keys(set).length) await dbOf(ctx).updateTable('resource_presets').set(set).where('id', '=', preset.id).execute();
      return { resource_preset: await findPreset(ctx, { id: preset.id }) };
    }),

    delete_resource_preset: mutation(async (args: { name?: string | null; id?: string | null }, ctx) => {
      requireSuperadmin(ctx);
      const preset = await targetPreset(ctx, args);
      await dbOf(ctx).deleteFrom('resource_presets').where('id', '=', preset.id).execute();
      return { resource_preset: preset };
    }),
  },
};
