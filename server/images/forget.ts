/**
 * Forgetting an image (GraphQL `forget_image`): it leaves the catalog, so no new session can use it; running
 * sessions keep running. Superadmins may forget any image; users their own committed or imported ones. A rescan
 * brings built-in images back.
 */
import type { App } from '../app';
import { isSuperadmin, type Principal } from '../auth/principal';
import type { Image } from '../db/schema';
import { Problem } from '../http/problem';
import { resolveImage } from './catalog';

export async function forgetImage(app: App, caller: Principal, reference: string, architecture?: string | null): Promise<Image> {
  const image = await resolveImage(app, reference);
  const mayForget = isSuperadmin(caller) || (image.owner_access_key !== null && image.owner_access_key === caller.accessKey);
  // An image the caller may not forget is reported as unknown, like any image they cannot see.
  if (!mayForget || (architecture && image.architecture !== architecture)) {
    throw new Problem('invalid-api-params', `Unknown image: ${reference}`, { reference: 'unknown image' });
  }
  await app.db.updateTable('images').set({ is_active: false }).where('id', '=', image.id).execute();
  await app.db.deleteFrom('image_aliases').where('image_id', '=', image.id).execute();
  return { ...image, is_active: false };
}
