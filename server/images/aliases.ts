/** Image aliases (superadmin, through GraphQL `alias_image` / `dealias_image`): extra names an image resolves by. */
import type { App } from '../app';
import { Problem } from '../http/problem';
import { resolveImage } from './catalog';

const ALIAS = /^[a-zA-Z0-9][a-zA-Z0-9._/:@-]{0,255}$/;

export async function aliasImage(app: App, alias: string, target: string, architecture?: string | null): Promise<void> {
  if (!ALIAS.test(alias)) throw new Problem('invalid-api-params', `Not a usable alias: ${alias}`, { alias: 'letters, digits and . _ / : @ -' });
  const image = await resolveImage(app, target);
  if (architecture && image.architecture !== architecture) throw new Problem('invalid-api-params', `No ${architecture} image ${target}.`);
  const taken = await app.db.selectFrom('images').select('id').where('name', '=', alias).where('is_active', '=', true).executeTakeFirst();
  if (taken) throw new Problem('invalid-api-params', `${alias} is already an image's name.`, { alias: 'already an image name' });
  const inserted = await app.db.insertInto('image_aliases').values({ alias, image_id: image.id }).onConflict((oc) => oc.column('alias').doNothing()).executeTakeFirst();
  if (!Number(inserted.numInsertedOrUpdatedRows ?? 0)) throw new Problem('invalid-api-params', `The alias ${alias} is already taken.`, { alias: 'already taken' });
}

export async function dealiasImage(app: App, alias: string): Promise<void> {
  const removed = await app.db.deleteFrom('image_aliases').where('alias', '=', alias).executeTakeFirst();
  if (!Number(removed.numDeletedRows)) throw new Problem('object-not-found', `No such alias: ${alias}`, undefined, { title: 'No such alias.' });
}
