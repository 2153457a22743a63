/**
 * The image mutations of CONTRACT §16 with Backend.AI's names: rescan, preload and unload (background tasks), alias,
 * dealias, modify (superadmin) and forget (superadmin, or the owner of a committed or imported image).
 */
import { aliasImage, dealiasImage } from '../images/aliases';
import { forgetImage } from '../images/forget';
import { modifyImage, type ImageChanges } from '../images/modify';
import { localCopyTask, rescanImages } from '../images/rescan';
import { mutation, requireSuperadmin, type ResolverMap } from './context';
import { entityResults, plainResults, resultTypes } from './sdl';

export const imageMutationTypeDefs = /* GraphQL */ `
  input KVPairInput {
    key: String!
    value: String!
  }

  input ResourceLimitInput {
    key: String!
    min: String
    max: String
  }

  input ModifyImageInput {
    labels: [KVPairInput]
    resource_limits: [ResourceLimitInput]
    size_bytes: BigInt
  }

  ${resultTypes({
    RescanImages: 'task_id: UUID',
    PreloadImage: 'task_id: UUID',
    UnloadImage: 'task_id: UUID',
    ...plainResults('AliasImage', 'DealiasImage', 'ModifyImage'),
    ...entityResults('Image', 'image', ['Forget']),
  })}

  extend type Mutation {
    "Writes the local registry's images again; follow the task through /events/background-task."
    rescan_images(registry: String): RescanImages
    preload_image(references: [String]!, target_agents: [String]!): PreloadImage
    unload_image(references: [String]!, target_agents: [String]!): UnloadImage
    alias_image(alias: String!, target: String!, architecture: String): AliasImage
    dealias_image(alias: String!): DealiasImage
    modify_image(target: String!, architecture: String, props: ModifyImageInput!): ModifyImage
    "Removes an image from the catalog: superadmins any, users their own committed or imported images."
    forget_image(reference: String!, architecture: String): ForgetImage
  }
`;

type CopyArgs = { references: string[]; target_agents: string[] };

export const imageMutationResolvers: ResolverMap = {
  Mutation: {
    rescan_images: mutation(async (args: { registry?: string | null }, ctx) => {
      requireSuperadmin(ctx);
      return { task_id: await rescanImages(ctx.app, ctx.principal, args.registry) };
    }),
    preload_image: mutation(async (args: CopyArgs, ctx) => {
      requireSuperadmin(ctx);
      return { task_id: await localCopyTask(ctx.app, ctx.principal, 'preload', args.references, args.target_agents) };
    }),
    unload_image: mutation(async (args: CopyArgs, ctx) => {
      requireSuperadmin(ctx);
      return { task_id: await localCopyTask(ctx.app, ctx.principal, 'unload', args.references, args.target_agents) };
    }),
    alias_image: mutation(async (args: { alias: string; target: string; architecture?: string | null }, ctx) => {
      requireSuperadmin(ctx);
      await aliasImage(ctx.app, args.alias, args.target, args.architecture);
    }),
    dealias_image: mutation(async (args: { alias: string }, ctx) => {
      requireSuperadmin(ctx);
      await dealiasImage(ctx.app, args.alias);
    }),
    modify_image: mutation(async (args: { target: string; architecture?: string | null; props: ImageChanges }, ctx) => {
      requireSuperadmin(ctx);
      await modifyImage(ctx.app, args.target, args.architecture, args.props);
    }),
    forget_image: mutation(async (args: { reference: string; architecture?: string | null }, ctx) => ({
      image: await forgetImage(ctx.app, ctx.principal, args.reference, args.architecture),
    })),
  },
};
