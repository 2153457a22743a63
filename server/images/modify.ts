/** Changing an image's labels, resource limits or recorded size (superadmin, GraphQL `modify_image`). */
import type { App } from '../app';
import { json } from '../db';
import { Problem } from '../http/problem';
import { parseAmount } from '../resources/slots';
import { resolveImage } from './catalog';

export interface ImageChanges {
  labels?: { key: string; value: string }[] | null;
  resource_limits?: { key: string; min?: string | null; max?: string | null }[] | null;
  size_bytes?: number | null;
}

export async function modifyImage(app: App, reference: string, architecture: string | null | undefined, changes: ImageChanges): Promise<void> {
  const image = await resolveImage(app, reference);
  if (architecture && image.architecture !== architecture) throw new Problem('invalid-api-params', `No ${architecture} image ${reference}.`);
  const set: Record<string, unknown> = {};
  if (changes.labels) set.labels = json(Object.fromEntries(changes.labels.map(({ key, value }) => [key, value])));
  if (changes.resource_limits) set.resource_limits = json(Object.fromEntries(changes.resource_limits.map((limit) => [limit.key, checkedLimit(limit)])));
  if (changes.size_bytes !== undefined && changes.size_bytes !== null) {
    if (!Number.isSafeInteger(changes.size_bytes) || changes.size_bytes < 0) throw new Problem('invalid-api-params', 'size_bytes must be a non-negative integer.');
    set.size_bytes = changes.size_bytes;
  }
  if (!Object.keys(set).length) return;
  await app.db.updateTable('images').set(set).where('id', '=', image.id).execute();
}

function checkedLimit(limit: { key: string; min?: string | null; max?: string | null }) {
  const min = limit.min ?? '0';
  const max = limit.max ?? null;
  for (const [name, value] of [['min', min], ['max', max]] as const) {
    if (value !== null && Number.isNaN(parseAmount(value))) throw new Problem('invalid-api-params', `${limit.key}.${name} is not an amount: ${value}`);
  }
  if (max !== null && parseAmount(max) < parseAmount(min)) throw new Problem('invalid-api-params', `${limit.key}: max is below min.`);
  return { min, max };
}
