/**
 * The create-session body with every alias CONTRACT §7.1 accepts folded into one canonical shape, validated by
 * zod so a malformed request is a 400 before anything is stored.
 */
import { z } from 'zod';
import { bool, fold, int, list } from '../http/params';
import type { CreateSessionInput } from './create';

/** Aliases of what a session and a model service (its replicas' sessions) are both made from. */
export const KERNEL_ALIASES: Record<string, string[]> = {
  image: ['lang'],
  arch: ['architecture'],
  group: ['groupName', 'group_name'],
  domain: ['domainName', 'domain_name'],
  cluster_size: ['clusterSize'],
  cluster_mode: ['clusterMode'],
  bootstrap_script: ['bootstrapScript'],
  callback_url: ['callbackUrl', 'callbackURL'],
};

/** CONTRACT §7.1 input aliases: canonical name → other accepted spellings. */
export const SESSION_ALIASES: Record<string, string[]> = {
  ...KERNEL_ALIASES,
  name: ['session_name', 'clientSessionToken'],
  type: ['sessionType'],
  starts_at: ['startsAt'],
  batch_timeout: ['batchTimeout'],
};

export const CONFIG_ALIASES: Record<string, string[]> = {
  scaling_group: ['scalingGroup'],
  resource_opts: ['resourceOpts'],
  mount_map: ['mountMap'],
  agent_list: ['agentList'],
};

const configSchema = z.preprocess(
  (v) => fold(CONFIG_ALIASES, v ?? {}),
  z.object({
    resources: z.record(z.string(), z.union([z.number(), z.string()])).optional(),
    environ: z.record(z.string(), z.string()).optional(),
    mounts: z.array(z.string()).optional(),
    mount_map: z.record(z.string(), z.string()).optional(),
    mount_options: z.record(z.string(), z.unknown()).optional(),
    scaling_group: z.string().min(1).optional(),
    resource_opts: z.record(z.string(), z.unknown()).optional(),
    preopen_ports: z.array(z.number().int().min(1024).max(65535)).optional(),
    agent_list: z.array(z.string()).optional(),
  }),
);

export const createSessionSchema = z.preprocess(
  (v) => fold(SESSION_ALIASES, v),
  z.object({
    name: z.string().min(1),
    image: z.string().min(1),
    arch: z.string().optional(),
    type: z.enum(['interactive', 'batch', 'inference']).default('interactive'),
    group: z.string().min(1).default('default'),
    domain: z.string().optional(),
    cluster_size: int().pipe(z.number().int().min(1, 'must be at least 1').max(64)).default(1),
    cluster_mode: z.enum(['single-node', 'multi-node']).default('single-node'),
    config: configSchema.default({}),
    tag: z.string().nullish(),
    priority: int().pipe(z.number().min(0).max(100)).default(10),
    enqueueOnly: bool().default(false),
    maxWaitSeconds: int().pipe(z.number().min(0)).default(0),
    starts_at: z.string().nullish(),
    reuseIfExists: bool().default(true),
    startupCommand: z.string().nullish(),
    bootstrap_script: z.string().nullish(),
    dependencies: list(z.string()).optional(),
    callback_url: z.url().nullish(),
    owner_access_key: z.string().nullish(),
    batch_timeout: int().pipe(z.number().min(1)).nullish(),
  }),
);

export type CreateSessionBody = z.infer<typeof createSessionSchema>;

/** The fields of a create-session body that hold text people wrote (RouteDef.freeText). */
export const SESSION_TEXT = ['startupCommand', 'bootstrap_script', 'config.environ'];

export function toCreateInput(body: CreateSessionBody): CreateSessionInput {
  return {
    name: body.name,
    image: body.image,
    arch: body.arch,
    type: body.type,
    group: body.group,
    domain: body.domain,
    clusterSize: body.cluster_size,
    clusterMode: body.cluster_mode,
    config: body.config,
    tag: body.tag ?? undefined,
    priority: body.priority,
    enqueueOnly: body.enqueueOnly,
    maxWaitSeconds: body.maxWaitSeconds,
    startsAt: body.starts_at ?? undefined,
    reuseIfExists: body.reuseIfExists,
    startupCommand: body.startupCommand ?? undefined,
    bootstrapScript: body.bootstrap_script ?? undefined,
    dependencies: body.dependencies,
    callbackUrl: body.callback_url ?? undefined,
    ownerAccessKey: body.owner_access_key ?? undefined,
    batchTimeout: body.batch_timeout ?? undefined,
  };
}
