/**
 * Coded errors (CONTRACT §6). Code throws `new Problem('object-not-found', 'No such session.')`; the request
 * pipeline turns it into an application/problem+json answer. The slug decides the status and the stable title.
 */
export const PROBLEM_TYPES = {
  'general-error': [500, 'General error'],
  'url-not-found': [404, 'Unknown URL path.'],
  'method-not-allowed': [405, 'Method not allowed.'],
  'object-not-found': [404, 'No such object.'],
  'generic-bad-request': [400, 'Bad request.'],
  'invalid-api-params': [400, 'Missing or invalid API parameters.'],
  'invalid-auth-params': [400, 'Missing or invalid authorization parameters.'],
  'invalid-credentials': [400, 'Invalid credentials.'],
  'auth-failed': [401, 'Unauthorized access'],
  'password-expired': [401, 'Password has expired.'],
  'generic-forbidden': [403, 'Forbidden operation.'],
  'insufficient-privilege': [403, 'Insufficient privilege.'],
  'rejected-by-hook': [400, 'Operation rejected by a hook plugin.'],
  'graphql-error': [400, 'GraphQL-generated error.'],
  'session-already-exists': [400, 'The session already exists but you requested different parameters.'],
  'too-many-sessions-matched': [404, 'Too many sessions matched.'],
  'too-many-kernels': [404, 'Too many kernels.'],
  'vfolder-creation-failed': [400, 'Virtual folder creation has failed.'],
  'vfolder-already-exists': [400, 'The virtual folder already exists with the same name.'],
  'too-many-vfolders': [404, 'Too many virtual folders matched.'],
  'vfolder-operation-failed': [400, 'Virtual folder operation has failed.'],
  'vfolder-filter-status-failed': [400, 'Virtual folder status filtering has failed.'],
  'vfolder-permission-error': [400, 'The virtual folder does not permit the specified permission.'],
  'quota-exceeded': [412, 'You have reached your resource limit.'],
  'request-timeout': [408, 'Request timeout.'],
  'payload-too-large': [413, 'Request body too large.'],
  'unsupported-media-type': [415, 'Unsupported media type.'],
  'upgrade-required': [426, 'This endpoint speaks WebSocket.'],
  'rate-limit-exceeded': [429, 'Rate limit exceeded.'],
  'request-header-fields-too-large': [431, 'Request header fields too large.'],
  'instance-not-available': [503, 'There is no available instance.'],
  'server-frozen': [503, 'The server is frozen due to maintenance. Please try again later.'],
  'service-unavailable': [503, 'Service unavailable.'],
  'bad-gateway': [502, 'Bad gateway.'],
  'server-misconfigured': [500, 'Service misconfigured.'],
  'internal-server-error': [500, 'Internal server error.'],
  'not-implemented': [400, 'Not implemented.'],
  'deprecated': [400, 'This API operation is deprecated.'],
  'kernel-creation-failed': [500, 'Kernel creation has failed.'],
  'kernel-destruction-failed': [500, 'Kernel destruction has failed.'],
  'kernel-restart-failed': [500, 'Kernel restart has failed.'],
  'kernel-execution-failed': [500, 'Executing user code in the kernel has failed.'],
} as const satisfies Record<string, readonly [number, string]>;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

export const PROBLEM_BASE = 'https://errors.berth.dev/';

/** The kinds of `agent_details.type` (CONTRACT §6: used only there). */
const AGENT_FAILURES = {
  timeout: 'The agent did not answer in time.',
  'invalid-input': 'The agent refused its input.',
  failure: 'The agent failed.',
} as const;
export type AgentFailure = keyof typeof AGENT_FAILURES;

export class Problem extends Error {
  readonly status: number;
  readonly title: string;
  readonly headers: Record<string, string>;
  /** `agent_details.type` for a kernel-* problem (CONTRACT §6.1): `failure` unless the thrower knows better. */
  readonly agentFailure?: AgentFailure;

  constructor(
    readonly slug: ProblemSlug,
    readonly detail?: string,
    readonly data?: unknown,
    options: { title?: string; headers?: Record<string, string>; agentFailure?: AgentFailure } = {},
  ) {
    const [status, title] = PROBLEM_TYPES[slug];
    super(detail ?? title);
    this.status = status;
    this.title = options.title ?? title;
    this.headers = options.headers ?? {};
    this.agentFailure = options.agentFailure ?? (slug.startsWith('kernel-') ? 'failure' : undefined);
  }

  toJSON(): Record<string, unknown> {
    const detail = this.detail ?? this.title;
    const body: Record<string, unknown> = { type: PROBLEM_BASE + this.slug, title: this.title, detail, msg: detail };
    if (this.data !== undefined) body.data = this.data;
    if (this.agentFailure) {
      body.agent_details = { type: `${PROBLEM_BASE}agent-${this.agentFailure}`, title: AGENT_FAILURES[this.agentFailure], exception: detail };
    }
    return body;
  }
}

/** 404 with the object named in the title, as clients show it ("No such session."). */
export function notFound(title: string, detail?: string): Problem {
  return new Problem('object-not-found', detail ?? title, undefined, { title });
}

export function badRequest(detail: string, data?: unknown): Problem {
  return new Problem('invalid-api-params', detail, data);
}

export function forbidden(detail = 'You are not allowed to do this.'): Problem {
  return new Problem('generic-forbidden', detail);
}
