/**
 * TaskTemplate (CONTRACT §14.1) and ClusterTemplate (§14.2) as zod schemas. Unknown extra keys are kept; the
 * spellings Backend.AI also accepts (apiVersion, task_template, sessionType, startupCommand, …) are folded into
 * the canonical ones before checking.
 */
import { z } from 'zod';
import { fold, uuid } from '../http/params';

const SESSION_TYPES = ['interactive', 'batch', 'inference'] as const;
const CLUSTER_MODES = ['single-node', 'multi-node'] as const;
export const MAIN_ROLE = 'main';

const required = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'required' : `must be ${what}`);
const text = () => z.string({ error: required('a string') });
const name = () => text().trim().min(1, 'must not be empty');
const stringMap = () => z.record(z.string(), z.string({ error: 'must be a string' }), { error: required('a map of strings') });
const object = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape, { error: required('an object') });

function aliased<T extends z.ZodType>(aliases: Record<string, string[]>, schema: T) {
  return z.preprocess((value) => fold(aliases, value), schema);
}

/** `{folder: path}`; a null path mounts the folder at its default place. */
const mounts = () => z.record(z.string(), z.string({ error: 'must be a path' }).nullable(), { error: 'must be a map of folder to path' });

export const taskTemplateSchema = aliased(
  { api_version: ['apiVersion'] },
  object({
    api_version: text(),
    kind: z.enum(['taskTemplate', 'task_template'], { error: required('taskTemplate') }),
    metadata: object({ name: name(), tag: text().nullish() }),
    spec: aliased(
      { session_type: ['sessionType', 'type'], agent_list: ['agentList'], scaling_group: ['scalingGroup'] },
      object({
        session_type: z.enum(SESSION_TYPES, { error: required(SESSION_TYPES.join(', ')) }),
        kernel: object({
          image: name(),
          architecture: text().trim().min(1, 'must not be empty').nullish(),
          environ: stringMap().nullish(),
          run: aliased(
            { startup_command: ['startupCommand', 'startup'] },
            object({ bootstrap: text().nullish(), startup_command: text().nullish() }),
          ).nullish(),
          git: aliased(
            { dest_dir: ['destination_dir', 'destinationDir'] },
            object({
              repository: name(),
              commit: text().nullish(),
              branch: text().nullish(),
              credential: object({ username: text(), password: text() }).nullish(),
              dest_dir: text().nullish(),
            }),
          ).nullish(),
        }),
        scaling_group: text().trim().min(1, 'must not be empty').nullish(),
        mounts: mounts().nullish(),
        resources: z.record(z.string(), z.union([z.number(), z.string()], { error: 'must be an amount' }), { error: 'must be a map of slot to amount' }).nullish(),
        agent_list: z.array(text(), { error: 'must be a list of agent ids' }).nullish(),
      }),
    ),
  }),
);

export type TaskTemplate = z.infer<typeof taskTemplateSchema>;

const nodeSchema = aliased(
  { session_template: ['sessionTemplate'] },
  object({
    role: name(),
    session_template: uuid(),
    replicas: z.number({ error: required('an integer') }).int('must be an integer').min(1, 'must be at least 1').default(1),
  }),
);

export const clusterTemplateSchema = aliased(
  { api_version: ['apiVersion'] },
  object({
    api_version: text(),
    kind: z.enum(['clusterTemplate', 'cluster_template'], { error: required('clusterTemplate') }),
    mode: z.enum(CLUSTER_MODES, { error: required(CLUSTER_MODES.join(' or ')) }),
    metadata: object({ name: name() }),
    spec: object({
      environ: stringMap().nullish(),
      mounts: mounts().nullish(),
      nodes: z.array(nodeSchema, { error: required('a list of nodes') }).min(1, 'must list at least one node'),
    }).superRefine((spec, ctx) => {
      const seen = new Set<string>();
      spec.nodes.forEach((node, i) => {
        if (seen.has(node.role)) ctx.addIssue({ code: 'custom', path: ['nodes', i, 'role'], message: `role "${node.role}" is defined twice` });
        seen.add(node.role);
        if (node.role === MAIN_ROLE && node.replicas !== 1) ctx.addIssue({ code: 'custom', path: ['nodes', i, 'replicas'], message: 'the main node must have replicas 1' });
      });
      const mains = spec.nodes.filter((n) => n.role === MAIN_ROLE).length;
      if (mains !== 1) ctx.addIssue({ code: 'custom', path: ['nodes'], message: `exactly one node must have role main (found ${mains})` });
    }),
  }),
);

export type ClusterTemplate = z.infer<typeof clusterTemplateSchema>;
