/**
 * Turns the documents of a payload into templates ready to store, or one 400 naming every problem. A session
 * template document is `{name?, group_id?, user_uuid?, template: TaskTemplate}` (a bare TaskTemplate is taken as
 * well); a cluster template document is a ClusterTemplate, bare or wrapped the same way. A cluster template's
 * nodes must name session templates the caller can use. Templates are stored as sent, so they read back unchanged.
 */
import { z } from 'zod';
import type { App } from '../app';
import type { Principal } from '../auth/principal';
import { fieldErrors, uuid } from '../http/params';
import { badRequest } from '../http/problem';
import { canManage } from './access';
import { toUuid } from './ids';
import { clusterTemplateSchema, taskTemplateSchema } from './schema';

export type TemplateKind = 'task' | 'cluster';

export interface PreparedTemplate {
  name: string;
  template: Record<string, unknown>;
  /** From the document's `group_id`, canonical. */
  groupId?: string;
  /** From the document's `user_uuid`, canonical. */
  userUuid?: string;
}

const wrapperSchema = z.looseObject({
  name: z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').nullish(),
  group_id: uuid().nullish(),
  user_uuid: uuid().nullish(),
  template: z.unknown(),
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function prepareTemplates(app: App, users: Principal[], kind: TemplateKind, documents: unknown[]): Promise<PreparedTemplate[]> {
  const errors: Record<string, string> = {};
  const prepared: PreparedTemplate[] = [];
  for (const [i, document] of documents.entries()) {
    const prefix = documents.length > 1 ? `${i}.` : '';
    const report = (field: string, message: string) => (errors[prefix + field] ??= message);
    if (!isObject(document)) {
      report('(document)', 'must be an object');
      continue;
    }
    const wrapped = 'template' in document && !('kind' in document);
    const wrapper = wrapped ? wrapperSchema.safeParse(document) : null;
    if (wrapper && !wrapper.success) {
      for (const [field, message] of Object.entries(fieldErrors(wrapper.error))) report(field, message);
      continue;
    }
    const body = wrapped ? document.template : document;
    const at = wrapped ? 'template.' : '';
    const checked = checkTemplate(kind, body);
    if (!checked.ok) {
      for (const [field, message] of Object.entries(checked.errors)) report(field === '(body)' ? (at ? 'template' : '(document)') : at + field, message);
      continue;
    }
    for (const [j, id] of checked.nodeTemplates.entries()) {
      if (!(await usableTaskTemplate(app, users, id))) report(`${at}spec.nodes.${j}.session_template`, 'no such session template');
    }
    const meta = wrapper?.data;
    prepared.push({
      name: meta?.name ?? checked.name,
      template: body as Record<string, unknown>,
      groupId: meta?.group_id ? toUuid(meta.group_id)! : undefined,
      userUuid: meta?.user_uuid ? toUuid(meta.user_uuid)! : undefined,
    });
  }
  const first = Object.entries(errors)[0];
  if (first) throw badRequest(`Invalid template: ${first[0]}: ${first[1]}`, errors);
  return prepared;
}

type Checked = { ok: true; name: string; nodeTemplates: string[] } | { ok: false; errors: Record<string, string> };

function checkTemplate(kind: TemplateKind, body: unknown): Checked {
  if (kind === 'task') {
    const checked = taskTemplateSchema.safeParse(body);
    return checked.success ? { ok: true, name: checked.data.metadata.name, nodeTemplates: [] } : { ok: false, errors: fieldErrors(checked.error) };
  }
  const checked = clusterTemplateSchema.safeParse(body);
  if (!checked.success) return { ok: false, errors: fieldErrors(checked.error) };
  return { ok: true, name: checked.data.metadata.name, nodeTemplates: checked.data.spec.nodes.map((n) => n.session_template) };
}

/** Whether an active session template with this id exists and one of `users` may use it. */
export async function usableTaskTemplate(app: App, users: Principal[], id: string): Promise<boolean> {
  const canonical = toUuid(id);
  if (!canonical) return false;
  const row = await app.db
    .selectFrom('session_templates')
    .select(['user_uuid', 'domain_name'])
    .where('id', '=', canonical)
    .where('type', '=', 'task')
    .where('is_active', '=', true)
    .executeTakeFirst();
  return !!row && users.some((u) => canManage(u, row));
}
