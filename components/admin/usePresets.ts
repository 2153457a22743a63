'use client';
/** Resource presets through GraphQL: the list, and create / modify / delete (each refreshes the list). */
import { graphqlMutation, revalidateGraphql, useGraphql } from '@/components/api/graphql';

export interface Preset {
  id: string;
  name: string;
  resource_slots: string;
  shared_memory: number | null;
  scaling_group_name: string | null;
}

/** What a preset holds besides its name: slots as JSON text, shared memory as the text typed ("64m"). */
export interface PresetProps {
  resource_slots: string;
  shared_memory: string | null;
  scaling_group_name: string | null;
}

const QUERY = '{ resource_presets { id name resource_slots shared_memory scaling_group_name } }';

export function usePresets() {
  return useGraphql<{ resource_presets: Preset[] | null }>(QUERY);
}

export async function createPreset(name: string, props: PresetProps): Promise<void> {
  await graphqlMutation('create_resource_preset', 'mutation($name: String!, $props: CreateResourcePresetInput!) { create_resource_preset(name: $name, props: $props) { ok msg } }', { name, props });
  await revalidateGraphql('resource_presets');
}

export async function modifyPreset(id: string, props: PresetProps & { name: string }): Promise<void> {
  await graphqlMutation('modify_resource_preset', 'mutation($id: UUID!, $props: ModifyResourcePresetInput!) { modify_resource_preset(id: $id, props: $props) { ok msg } }', { id, props });
  await revalidateGraphql('resource_presets');
}

export async function deletePreset(id: string): Promise<void> {
  await graphqlMutation('delete_resource_preset', 'mutation($id: UUID!) { delete_resource_preset(id: $id) { ok msg } }', { id });
  await revalidateGraphql('resource_presets');
}
