/**
 * A template `payload` is JSON or YAML text holding one document or a list of them (CONTRACT §14.1). A YAML
 * stream of several documents (`---`) counts as a list too.
 */
import YAML from 'yaml';
import { badRequest } from '../http/problem';

const MAX_DOCUMENTS = 100;

export function parsePayload(text: string): unknown[] {
  if (!text.trim()) throw badRequest('The payload is empty.', { payload: 'empty' });
  const documents = asList(parseText(text));
  if (documents.length === 0) throw badRequest('The payload holds no template.', { payload: 'no document' });
  if (documents.length > MAX_DOCUMENTS) throw badRequest(`A payload may hold at most ${MAX_DOCUMENTS} templates.`, { payload: 'too many documents' });
  return documents;
}

function parseText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: read it as YAML.
  }
  let values: unknown[];
  try {
    const documents = YAML.parseAllDocuments(text, { uniqueKeys: true });
    const failed = documents.flatMap((d) => d.errors)[0];
    if (failed) throw failed;
    values = documents.map((d) => d.toJS({ maxAliasCount: 100 })).filter((v) => v !== null && v !== undefined);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : 'unreadable';
    throw badRequest(`Malformed payload: ${reason}`, { payload: 'not valid JSON or YAML' });
  }
  return values.length === 1 ? values[0] : values;
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}
