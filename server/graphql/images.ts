/**
 * Images with Backend.AI's field names: `image(reference)` and `images`. Built-in images (no owner) are listed
 * for everyone; an image committed or imported by a user is listed for that user and for administrators who see
 * them (their domain's admins, superadmins), like sessions. The owner's access key itself is never shown.
 */
import { isAdmin, isSuperadmin } from '../auth/principal';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Database, Image } from '../db/schema';
import { dbOf, groupBy, loader, type GqlContext, type ResolverMap } from './context';
import { canonicalUuid } from '../util/uuid';

export const imageTypeDefs = /* GraphQL */ `
  type KVPair {
    key: String
    value: String
  }

  type ResourceLimit {
    key: String
    min: String
    max: String
  }

  type Image {
    id: UUID
    "The canonical reference, e.g. berth/python:3.11."
    name: String
    humanized_name: String
    "The name without registry and tag."
    base_image_name: String
    namespace: String
    tag: String
    registry: String
    architecture: String
    "python or shell: the interpreter the kernel runner drives."
    runtime: String
    is_local: Boolean
    digest: String
    "The same as digest (Backend.AI's config digest)."
    hash: String
    labels: [KVPair]
    aliases: [String]
    size_bytes: BigInt
    resource_limits: [ResourceLimit]
    supported_accelerators: [String]
    installed: Boolean
    installed_agents: [String]
    "Apps the image offers: name, protocol and container ports."
    service_ports: JSONString
    "True for an image a user committed from a session or imported."
    is_customized: Boolean
    "The session it was committed from, for committed images."
    committed_from: UUID
    created_at: DateTime
  }

  extend type Query {
    "An image by canonical name, alias or id."
    image(reference: String!, architecture: String): Image
    "Active images. is_installed=false lists nothing (every image is present on every agent)."
    images(is_installed: Boolean, is_operation: Boolean, architecture: String): [Image]
    "The caller's own committed or imported images (any of their keypairs)."
    customized_images: [Image]
  }
`;

/** Which owners' images the caller sees: built-in ones, their own, their domain's (admins), all (superadmins). */
function ownerCondition(ctx: GqlContext) {
  const p = ctx.principal;
  return (eb: ExpressionBuilder<Database, 'images'>) => {
    if (isSuperadmin(p)) return eb.lit(true);
    const own: Expression<SqlBool>[] = [eb('images.owner_access_key', 'is', null), eb('images.owner_access_key', '=', p.accessKey)];
    if (isAdmin(p)) {
      own.push(
        eb(
          'images.owner_access_key',
          'in',
          eb.selectFrom('keypairs as kp').innerJoin('users as ou', 'ou.uuid', 'kp.user_id').select('kp.access_key').where('ou.domain_name', '=', p.domainName),
        ),
      );
    }
    return eb.or(own);
  };
}

function visibleImages(ctx: GqlContext) {
  return dbOf(ctx).selectFrom('images').selectAll('images').where('images.is_active', '=', true).where(ownerCondition(ctx));
}

function aliasesOf(ctx: GqlContext, imageId: string): Promise<string[]> {
  const load = loader<string, { alias: string; image_id: string }[]>(ctx, 'image.aliases', async (ids) => {
    const rows = await dbOf(ctx).selectFrom('image_aliases').selectAll().where('image_id', 'in', ids).orderBy('alias').execute();
    return groupBy(rows, (r) => r.image_id);
  });
  return load.load(imageId).then((rows) => (rows ?? []).map((r) => r.alias));
}

/** Splits registry/namespace/name:tag; a name without a registry part is in the local registry. */
function parts(image: Image) {
  const colon = image.name.lastIndexOf(':');
  const slash = image.name.lastIndexOf('/');
  const path = colon > slash ? image.name.slice(0, colon) : image.name;
  const segments = path.split('/');
  const base = segments.pop() ?? path;
  return { base, namespace: segments.join('/') || null };
}

export const imageResolvers: ResolverMap = {
  Query: {
    image: async (_root, args: { reference: string; architecture?: string | null }, ctx) => {
      const byAlias = dbOf(ctx).selectFrom('image_aliases').select('image_id').where('alias', '=', args.reference);
      const id = canonicalUuid(args.reference);
      let q = visibleImages(ctx).where((eb) =>
        eb.or([eb('images.name', '=', args.reference), eb('images.id', 'in', byAlias), ...(id ? [eb('images.id', '=', id)] : [])]),
      );
      if (args.architecture) q = q.where('images.architecture', '=', args.architecture);
      return (await q.executeTakeFirst()) ?? null;
    },
    customized_images: (_root, _args, ctx) =>
      visibleImages(ctx)
        .where('images.owner_access_key', 'in', (eb) => eb.selectFrom('keypairs').select('access_key').where('user_id', '=', ctx.principal.userId))
        .orderBy('images.name')
        .execute(),
    images: async (_root, args: { is_installed?: boolean | null; is_operation?: boolean | null; architecture?: string | null }, ctx) => {
      // Every image is on every agent, and Berth has no operation (system) images.
      if (args.is_installed === false || args.is_operation === true) return [];
      let q = visibleImages(ctx);
      if (args.architecture) q = q.where('images.architecture', '=', args.architecture);
      return q.orderBy('images.name').execute();
    },
  },
  Image: {
    humanized_name: (image: Image) => image.name,
    base_image_name: (image: Image) => parts(image).base,
    namespace: (image: Image) => parts(image).namespace,
    is_local: (image: Image) => image.registry === 'local',
    digest: (image: Image) => image.id,
    hash: (image: Image) => image.id,
    labels: (image: Image) => Object.entries(image.labels).map(([key, value]) => ({ key, value })),
    aliases: (image: Image, _args, ctx: GqlContext) => aliasesOf(ctx, image.id),
    resource_limits: (image: Image) => Object.entries(image.resource_limits).map(([key, limit]) => ({ key, min: limit.min, max: limit.max ?? null })),
    supported_accelerators: () => [],
    installed: () => true,
    installed_agents: async (_image: Image, _args, ctx: GqlContext) => {
      const load = loader<'alive', string[]>(ctx, 'image.agents', async () => {
        const rows = await dbOf(ctx).selectFrom('agents').select('id').where('status', '=', 'ALIVE').orderBy('id').execute();
        return new Map([['alive', rows.map((r) => r.id)]]);
      });
      return (await load.load('alive')) ?? [];
    },
    service_ports: (image: Image) => image.service_ports.map(({ name, protocol, ports }) => ({ name, protocol, ports })),
    is_customized: (image: Image) => image.owner_access_key !== null,
    committed_from: (image: Image) => image.labels['ai.backend.committed-from'] ?? null,
  },
};
