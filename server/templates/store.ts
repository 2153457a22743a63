/**
 * Session and cluster templates in `session_templates` (CONTRACT §14.1, §14.2): create from a payload, list what
 * the caller manages, read, replace and soft-delete (is_active=false; a deleted template is gone for every route).
 * Who manages what is decided in ./access, for listing and reading alike.
 */
import { randomUUID } from 'node:crypto';
import type { App } from '../app';
import { actingAs } from '../auth/delegation';
import type { Principal } from '../auth/principal';
import { json } from '../db';
import { badRequest, notFound } from '../http/problem';
import { canManage, checkOwnerOverride, managedTemplates, resolveScope, withinOwnDomain } from './access';
import { hex32, toUuid } from './ids';
import { parsePayload } from './payload';
import { listItem, type ListedTemplateRow, type TemplateRow } from './render';
import { prepareTemplates, type TemplateKind } from './validate';
import { submissionLookups } from '../sessions/lookups';

export interface StoreInput {
  payload: string;
  group?: string | null;
  domain?: string | null;
  owner_access_key?: string | null;
}

export interface ListInput {
  all: boolean;
  group_id?: string | null;
}

const TITLES: Record<TemplateKind, string> = { task: 'No such session template.', cluster: 'No such cluster template.' };

export async function createTemplates(app: App, caller: Principal, kind: TemplateKind, input: StoreInput): Promise<{ id: string; user: string }[]> {
  const owner = await actingAs(app, caller, input.owner_access_key);
  const scope = await resolveScope(app, owner, input.domain ?? owner.domainName, input.group ?? 'default');
  const prepared = await prepareTemplates(app, [caller, owner], kind, parsePayload(input.payload));
  const now = new Date();
  const rows = [];
  for (const template of prepared) {
    if (template.userUuid) await checkOwnerOverride(app, caller, template.userUuid, 'user_uuid');
    const groupId = template.groupId ? (await resolveScope(app, owner, scope.domainName, template.groupId)).groupId : scope.groupId;
    rows.push({
      id: randomUUID(),
      name: template.name,
      type: kind,
      is_active: true,
      domain_name: scope.domainName,
      group_id: groupId,
      user_uuid: template.userUuid ?? owner.userId,
      template: json(template.template),
      created_at: now,
    });
  }
  await app.db.insertInto('session_templates').values(rows).execute();
  return rows.map((row) => ({ id: hex32(row.id), user: hex32(row.user_uuid) }));
}

function activeTemplate(app: App, kind: TemplateKind, id: string): Promise<TemplateRow | undefined> {
  return app.db.selectFrom('session_templates').selectAll().where('id', '=', id).where('type', '=', kind).where('is_active', '=', true).executeTakeFirst();
}

/**
 * An active template of this kind the caller (or the owner it acts for) manages; 404 otherwise. `forSubmission`:
 * the row may come from the submission lookups (../sessions/lookups, refreshed by the caller), read-only.
 */
export async function findTemplate(app: App, caller: Principal, kind: TemplateKind, id: string, ownerAccessKey?: string | null, forSubmission = false): Promise<TemplateRow> {
  const owner = await actingAs(app, caller, ownerAccessKey);
  const canonical = toUuid(id);
  let row: TemplateRow | undefined;
  if (canonical && forSubmission) row = await submissionLookups(app).remember(`template\0${kind}\0${canonical}`, () => activeTemplate(app, kind, canonical));
  else if (canonical) row = await activeTemplate(app, kind, canonical);
  if (!row || !(canManage(caller, row) || canManage(owner, row))) throw notFound(TITLES[kind], `No ${kind === 'task' ? 'session' : 'cluster'} template with id "${id}".`);
  return row;
}

export async function listTemplates(app: App, caller: Principal, kind: TemplateKind, input: ListInput) {
  const from = app.db
    .selectFrom('session_templates as t')
    .leftJoin('users as u', 'u.uuid', 't.user_uuid')
    .leftJoin('groups as g', 'g.id', 't.group_id')
    .select(['t.id', 't.name', 't.type', 't.domain_name', 't.group_id', 't.user_uuid', 't.template', 't.created_at', 'u.email as user_email', 'g.name as group_name'])
    .where('t.is_active', '=', true)
    .where('t.type', '=', kind);
  let query = managedTemplates(caller, from);
  if (!input.all) query = withinOwnDomain(caller, query);
  if (input.group_id) {
    const groupId = toUuid(input.group_id);
    query = groupId ? query.where('t.group_id', '=', groupId) : query.where('g.name', '=', input.group_id);
  }
  const rows: ListedTemplateRow[] = await query.orderBy('t.created_at').orderBy('t.id').execute();
  return rows.map((row) => listItem(row, caller));
}

/** Replaces a template's content (one document); `group`/`domain`, when given, move it. */
export async function updateTemplate(app: App, caller: Principal, kind: TemplateKind, id: string, input: StoreInput): Promise<{ success: true }> {
  const row = await findTemplate(app, caller, kind, id, input.owner_access_key);
  const owner = await actingAs(app, caller, input.owner_access_key);
  const documents = parsePayload(input.payload);
  if (documents.length !== 1) throw badRequest('A template is replaced by exactly one document.', { payload: 'must hold exactly one template' });
  const [template] = await prepareTemplates(app, [caller, owner], kind, documents);
  if (template.userUuid) await checkOwnerOverride(app, caller, template.userUuid, 'user_uuid');
  const moved = input.group || input.domain;
  const scope = moved ? await resolveScope(app, owner, input.domain ?? row.domain_name, input.group ?? row.group_id ?? 'default') : null;
  const domainName = scope?.domainName ?? row.domain_name;
  const groupId = template.groupId ? (await resolveScope(app, owner, domainName, template.groupId)).groupId : (scope?.groupId ?? row.group_id);
  await app.db
    .updateTable('session_templates')
    .set({ name: template.name, template: json(template.template), domain_name: domainName, group_id: groupId, user_uuid: template.userUuid ?? row.user_uuid })
    .where('id', '=', row.id)
    .execute();
  return { success: true };
}

export async function deleteTemplate(app: App, caller: Principal, kind: TemplateKind, id: string, ownerAccessKey?: string | null): Promise<{ success: true }> {
  const row = await findTemplate(app, caller, kind, id, ownerAccessKey);
  await app.db.updateTable('session_templates').set({ is_active: false }).where('id', '=', row.id).execute();
  return { success: true };
}
