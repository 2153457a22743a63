/**
 * Bodies of POST /session/_/create-from-template and POST /session/_/create-cluster. Fields keep the spellings
 * CONTRACT §7.1 accepts; they are folded to the canonical names here so a request field can be laid over the
 * template's defaults before the whole is validated as a create-session body.
 */
import { z } from 'zod';
import { bool, fold, int, uuid } from '../http/params';
import { CONFIG_ALIASES, SESSION_ALIASES as CREATE_ALIASES } from '../sessions/inputs';

/** The create-session aliases, plus the template id's own spelling. */
const SESSION_ALIASES: Record<string, string[]> = { ...CREATE_ALIASES, template_id: ['templateId'] };

const config = z.preprocess((v) => fold(CONFIG_ALIASES, v), z.record(z.string(), z.unknown(), { error: 'must be an object' }));

/**
 * Every field is optional: the template supplies what the request leaves out. The remaining fields are checked
 * with the create-session rules once merged.
 */
export const fromTemplateSchema = z.preprocess(
  (v) => fold(SESSION_ALIASES, v),
  z.looseObject({
    template_id: uuid().nullish(),
    name: z.string({ error: 'must be a string' }).nullish(),
    config: config.nullish(),
    owner_access_key: z.string({ error: 'must be a string' }).nullish(),
  }),
);

export type FromTemplateRequest = z.infer<typeof fromTemplateSchema>;

const CLUSTER_ALIASES: Record<string, string[]> = {
  clientSessionToken: ['name', 'session_name'],
  template_id: ['templateId'],
  type: ['sessionType'],
  group: ['groupName', 'group_name'],
  domain: ['domainName', 'domain_name'],
  scaling_group: ['scalingGroup'],
};

const requiredText = () => z.string({ error: (issue) => (issue.input === undefined ? 'required' : 'must be a string') }).min(1, 'must not be empty');

export const clusterRequestSchema = z.preprocess(
  (v) => fold(CLUSTER_ALIASES, v),
  z.object({
    clientSessionToken: requiredText(),
    template_id: z
      .string({ error: (issue) => (issue.input == null ? 'a cluster template id is required' : 'must be a string') })
      .pipe(uuid()),
    type: z.enum(['interactive', 'batch', 'inference']).nullish(),
    group: z.string().min(1).nullish(),
    domain: z.string().min(1).nullish(),
    scaling_group: z.string().min(1).nullish(),
    tag: z.string().nullish(),
    enqueueOnly: bool().nullish(),
    maxWaitSeconds: int().pipe(z.number().min(0)).nullish(),
    owner_access_key: z.string().nullish(),
  }),
);

export type ClusterRequest = z.infer<typeof clusterRequestSchema>;
