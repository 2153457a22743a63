/** The wire shapes of templates (CONTRACT §14.1): list items, the single-template answer, JSON or YAML. */
import YAML from 'yaml';
import type { Principal } from '../auth/principal';
import { raw, type RawReply } from '../http/route';
import { hex32 } from './ids';

export interface TemplateRow {
  id: string;
  name: string;
  type: string;
  domain_name: string;
  group_id: string | null;
  user_uuid: string;
  template: Record<string, unknown>;
  created_at: Date | string;
}

export interface ListedTemplateRow extends TemplateRow {
  user_email: string | null;
  group_name: string | null;
}

export type TemplateFormat = 'json' | 'yaml';

export function listItem(row: ListedTemplateRow, viewer: Principal) {
  return {
    name: row.name,
    id: hex32(row.id),
    created_at: new Date(row.created_at).toISOString(),
    is_owner: row.user_uuid === viewer.userId,
    user: row.user_uuid,
    group: row.group_id,
    user_email: row.user_email,
    group_name: row.group_name,
    domain_name: row.domain_name,
    type: row.type,
    template: row.template,
  };
}

export function detail(row: TemplateRow) {
  return { template: row.template, name: row.name, user_uuid: row.user_uuid, group_id: row.group_id, domain_name: row.domain_name };
}

export function renderDetail(row: TemplateRow, format: TemplateFormat): ReturnType<typeof detail> | RawReply {
  return format === 'yaml' ? raw('text/yaml', YAML.stringify(detail(row))) : detail(row);
}
