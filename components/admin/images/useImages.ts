'use client';
/**
 * Images through GraphQL (the catalog with aliases and the agents that have each image, users' customized images,
 * alias/dealias, forget, rescan) and the REST import (`/image/import`: its form and the conversion it starts).
 */
import { graphqlMutation, revalidateGraphql, useGraphql } from '@/components/api/graphql';
import { managerSend, useManager } from '@/components/api/useManager';

export interface AdminImage {
  id: string;
  /** The canonical name with its tag (e.g. cr.backend.ai/stable/python:3.11), what sessions are started with. */
  name: string;
  humanized_name: string | null;
  tag: string | null;
  registry: string | null;
  architecture: string;
  aliases: string[] | null;
  size_bytes: number | null;
  installed_agents: string[] | null;
  is_customized: boolean | null;
  created_at: string | null;
}

const IMAGE_FIELDS = 'id name humanized_name tag registry architecture aliases size_bytes installed_agents is_customized created_at';

export function useImages() {
  return useGraphql<{ images: AdminImage[] | null; customized_images: AdminImage[] | null }>(`{ images { ${IMAGE_FIELDS} } customized_images { ${IMAGE_FIELDS} } }`);
}

const refresh = () => revalidateGraphql('images');

export async function aliasImage(alias: string, target: string, architecture: string): Promise<void> {
  await graphqlMutation('alias_image', 'mutation($alias: String!, $target: String!, $arch: String) { alias_image(alias: $alias, target: $target, architecture: $arch) { ok msg } }', { alias, target, arch: architecture });
  await refresh();
}

export async function dealiasImage(alias: string): Promise<void> {
  await graphqlMutation('dealias_image', 'mutation($alias: String!) { dealias_image(alias: $alias) { ok msg } }', { alias });
  await refresh();
}

export async function forgetImage(reference: string, architecture: string): Promise<void> {
  await graphqlMutation('forget_image', 'mutation($ref: String!, $arch: String) { forget_image(reference: $ref, architecture: $arch) { ok msg } }', { ref: reference, arch: architecture });
  await refresh();
}

/** Starts a rescan of the local registry; the catalog is read again when it is accepted. */
export async function rescanImages(): Promise<string | null> {
  const result = await graphqlMutation<{ ok: boolean; msg: string | null; task_id: string | null }>('rescan_images', 'mutation { rescan_images { ok msg task_id } }', {});
  await refresh();
  return result.task_id;
}

interface FormField {
  name: string;
  type?: string;
  default?: unknown;
  choices?: string[];
  fields?: FormField[];
}

export function useImportForm(enabled: boolean) {
  return useManager<{ fieldGroups: { name: string; fields: FormField[] }[] }>(enabled ? '/image/import' : null, { revalidateOnFocus: false });
}

/** Every field's default (a `group` as an object; repeated groups start empty), the base of an import request. */
export function importDefaults(groups: { fields: FormField[] }[]): Record<string, unknown> {
  const collect = (fields: FormField[]): Record<string, unknown> =>
    Object.fromEntries(
      fields.filter((f) => f.default !== undefined || f.type === 'group').map((f) => [f.name, f.type === 'group' ? collect(f.fields ?? []) : f.default]),
    );
  return Object.assign({}, ...groups.map((g) => collect(g.fields)));
}

export function importChoices(groups: { fields: FormField[] }[], name: string): string[] {
  const all = groups.flatMap((g) => g.fields.flatMap((f) => [f, ...(f.fields ?? [])]));
  return all.find((f) => f.name === name)?.choices ?? [];
}

export async function importImage(body: Record<string, unknown>): Promise<{ importTask: { sessionId: string; taskId: string } }> {
  const answer = await managerSend<{ importTask: { sessionId: string; taskId: string } }>('POST', '/image/import', body);
  await refresh();
  return answer;
}
