/** `berth service …`: create, inspect, scale and delete model services, and get tokens for their endpoints. */
import { parseArgs } from 'node:util';
import { signedClient, UsageError } from './credentials';

export async function service(args: string[]): Promise<unknown> {
  const [action, ...rest] = args;
  const id = (what: string) => {
    if (!rest[0]) throw new UsageError(`service ${what} needs a SERVICE_ID`);
    return `/services/${encodeURIComponent(rest[0])}`;
  };
  switch (action) {
    case 'create':
      return create(rest);
    case 'list':
      return signedClient().call('GET', '/services');
    case 'info':
      return signedClient().call('GET', id('info'));
    case 'scale': {
      const path = id('scale');
      const to = Number(rest[1]);
      if (!rest[1] || !Number.isInteger(to)) throw new UsageError('service scale needs a SERVICE_ID and a COUNT');
      return signedClient().call('POST', `${path}/scale`, { body: { to } });
    }
    case 'token': {
      const path = id('token');
      const { values } = parseArgs({ args: rest.slice(1), options: { duration: { type: 'string', default: '30d' } } });
      return signedClient().call('POST', `${path}/token`, { body: { duration: values.duration } });
    }
    case 'errors':
      return signedClient().call('GET', `${id('errors')}/errors`);
    case 'clear-errors':
      return signedClient().call('POST', `${id('clear-errors')}/errors/clear`);
    case 'delete':
      return signedClient().call('DELETE', id('delete'));
    default:
      throw new UsageError(`unknown service action: ${action ?? ''}`);
  }
}

async function create(args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      model: { type: 'string' },
      mount: { type: 'string', default: '/home/work/model' },
      'definition-path': { type: 'string' },
      replicas: { type: 'string', default: '1' },
      image: { type: 'string', default: 'python' },
      group: { type: 'string', default: 'default' },
      'startup-command': { type: 'string' },
      public: { type: 'boolean', default: false },
      cpu: { type: 'string' },
      mem: { type: 'string' },
      env: { type: 'string', multiple: true },
    },
  });
  const [name] = positionals;
  if (!name || !values.model) throw new UsageError('service create needs a NAME and --model FOLDER');
  const resources: Record<string, string> = {};
  if (values.cpu) resources.cpu = values.cpu;
  if (values.mem) resources.mem = values.mem;
  const environ = Object.fromEntries((values.env ?? []).map((pair) => [pair.split('=')[0], pair.split('=').slice(1).join('=')]));
  return signedClient().call('POST', '/services', {
    body: {
      name,
      desired_session_count: Number(values.replicas),
      image: values.image,
      group: values.group,
      startup_command: values['startup-command'],
      open_to_public: values.public,
      config: { model: values.model, model_mount_destination: values.mount, model_definition_path: values['definition-path'], resources, environ },
    },
  });
}
