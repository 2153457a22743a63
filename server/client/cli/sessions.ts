/** `berth session …` and `berth events`: start, use and end compute sessions from a terminal. */
import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline/promises';
import { signedClient, UsageError } from './credentials';
import { queueWords } from '../../sessions/scheduler/reasons';
import { serverEvents } from './sse';
import { dispatch, type Action } from './dispatch';
import { KERNEL_OPTIONS, kernelConfig } from './kernel-options';

export function session(args: string[]): Promise<unknown> {
  return dispatch('session action', SESSION_ACTIONS, args);
}

const SESSION_ACTIONS: Record<string, Action> = {
  create,
  info: async ([name]) => {
    if (!name) throw new UsageError('session info needs a NAME');
    const info = await signedClient().call('GET', `/session/${encodeURIComponent(name)}`);
    // Stdout stays JSON; a pending session's place in line is said in words on stderr.
    if (info.status === 'PENDING') process.stderr.write(`${pendingSummary(info)}\n`);
    return info;
  },
  exec,
  logs: async ([name]) => {
    if (!name) throw new UsageError('session logs needs a NAME');
    const { result } = await signedClient().call('GET', `/session/${encodeURIComponent(name)}/logs`);
    process.stdout.write(result.logs);
    return undefined;
  },
  destroy: (rest) => {
    const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { forced: { type: 'boolean', default: false } } });
    if (!positionals[0]) throw new UsageError('session destroy needs a NAME');
    return signedClient().call('DELETE', `/session/${encodeURIComponent(positionals[0])}`, { query: { forced: values.forced } });
  },
};

async function create(args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      image: { type: 'string', default: 'python' },
      type: { type: 'string', default: 'interactive' },
      'startup-command': { type: 'string' },
      ...KERNEL_OPTIONS,
      group: { type: 'string', default: 'default' },
      'enqueue-only': { type: 'boolean', default: false },
      'scaling-group': { type: 'string' },
    },
  });
  const [name] = positionals;
  if (!name) throw new UsageError('session create needs a NAME');
  const { resources, environ } = kernelConfig(values);
  return signedClient().call('POST', '/session', {
    body: {
      name,
      image: values.image,
      type: values.type,
      group: values.group,
      startupCommand: values['startup-command'],
      enqueueOnly: values['enqueue-only'],
      config: { resources, environ, ...(values['scaling-group'] ? { scaling_group: values['scaling-group'] } : {}) },
    },
  });
}

/** Runs code (query mode) and prints the output as it arrives; answers input prompts from the terminal. */
async function exec(args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { batch: { type: 'string' } } });
  const [name, ...code] = positionals;
  if (!name || (!code.length && !values.batch)) throw new UsageError('session exec needs a NAME and CODE (or --batch COMMAND)');
  const client = signedClient();
  const path = `/session/${encodeURIComponent(name)}`;
  let { result } = values.batch
    ? await client.call('POST', path, { body: { mode: 'batch', runId: null, code: '', options: { exec: values.batch } } })
    : await client.call('POST', path, { body: { mode: 'query', runId: null, code: code.join(' ') } });
  for (;;) {
    for (const [kind, data] of result.console as [string, string][]) (kind === 'stderr' ? process.stderr : process.stdout).write(String(data));
    if (result.status === 'finished') break;
    if (result.status === 'waiting-input') {
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      const text = await rl.question('');
      rl.close();
      ({ result } = await client.call('POST', path, { body: { mode: 'input', runId: result.runId, code: text } }));
    } else {
      ({ result } = await client.call('POST', path, { body: { mode: 'continue', runId: result.runId, code: '' } }));
    }
  }
  process.exitCode = result.exitCode ?? 0;
  return undefined;
}

/** Prints session events as JSON lines until interrupted (or the server closes the stream). */
export async function events(args: string[]): Promise<unknown> {
  const { values } = parseArgs({ args, options: { name: { type: 'string' }, scope: { type: 'string' } } });
  const res = await signedClient().open('GET', '/events/session', { query: { name: values.name, scope: values.scope } });
  if (res.statusCode !== 200) throw new UsageError(`the server answered ${res.statusCode}`);
  for await (const { event, data } of serverEvents(res)) {
    if (event) console.log(JSON.stringify({ event, ...data }));
    if (event === 'server_close') return undefined;
  }
  return undefined;
}

/** "Pending: <reason> Position 3 in line; estimated start: unknown." */
export function pendingSummary(info: { statusInfo?: string; queuePosition?: number | null; estimatedStart?: string | null }): string {
  return `Pending: ${info.statusInfo || 'not looked at by the scheduler yet.'} ${queueWords(info.queuePosition, info.estimatedStart)}.`;
}
