/** Resource presets: readable by every user; superadmins create, modify and delete them. */
import { mutation, type ResolverMap } from './context';
import { findPreset, presetsFrom, type PresetProps } from '../presets/values';
import { createPreset } from '../presets/create';
import { modifyPreset } from '../presets/modify';
import { deletePreset } from '../presets/delete';
import { entityResults, resultTypes } from './sdl';

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

  ${resultTypes(entityResults('ResourcePreset', 'resource_preset', ['Create', 'Modify', 'Delete']))}

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

export const presetResolvers: ResolverMap = {
  Query: {
    resource_preset: async (_root, args: { name?: string | null; id?: string | null }, ctx) => (await findPreset(ctx.app, args)) ?? null,
    resource_preset_by_id: async (_root, args: { id: string }, ctx) => (await findPreset(ctx.app, { id: args.id })) ?? null,
    resource_presets: (_root, args: { scaling_group_name?: string | null }, ctx) => {
      let q = presetsFrom(ctx.app);
      if (args.scaling_group_name) q = q.where('scaling_group_name', '=', args.scaling_group_name);
      return q.orderBy('name').orderBy('id').execute();
    },
  },
  Mutation: {
    create_resource_preset: mutation((args: { name: string; props: PresetProps }, ctx) => createPreset(ctx.app, ctx.principal, args)),

    modify_resource_preset: mutation((args: { name?: string | null; id?: string | null; props: PresetProps }, ctx) => modifyPreset(ctx.app, ctx.principal, args)),

    delete_resource_preset: mutation((args: { name?: string | null; id?: string | null }, ctx) => deletePreset(ctx.app, ctx.principal, args)),
  },
};
