/** `berth service …`: create, inspect, scale and delete model services, and get tokens for their endpoints. */
import { parseArgs } from 'node:util';
import { signedClient, UsageError } from './credentials';
import { dispatch, type Action } from './dispatch';
import { KERNEL_OPTIONS, kernelConfig } from './kernel-options';

export function service(args: string[]): Promise<unknown> {
  return dispatch('service action', SERVICE_ACTIONS, args);
}

/** The path of the service named first in `args`; a usage error naming the action without one. */
function servicePath(action: string, [serviceId]: string[]): string {
  if (!serviceId) throw new UsageError(`service ${action} needs a SERVICE_ID`);
  return `/services/${encodeURIComponent(serviceId)}`;
}

const SERVICE_ACTIONS: Record<string, Action> = {
  create,
  list: () => signedClient().call('GET', '/services'),
  info: (rest) => signedClient().call('GET', servicePath('info', rest)),
  scale: (rest) => {
    const path = servicePath('scale', rest);
    const to = Number(rest[1]);
    if (!rest[1] || !Number.isInteger(to)) throw new UsageError('service scale needs a SERVICE_ID and a COUNT');
    return signedClient().call('POST', `${path}/scale`, { body: { to } });
  },
  token: (rest) => {
    const path = servicePath('token', rest);
    const { values } = parseArgs({ args: rest.slice(1), options: { duration: { type: 'string', default: '30d' } } });
    return signedClient().call('POST', `${path}/token`, { body: { duration: values.duration } });
  },
  errors: (rest) => signedClient().call('GET', `${servicePath('errors', rest)}/errors`),
  'clear-errors': (rest) => signedClient().call('POST', `${servicePath('clear-errors', rest)}/errors/clear`),
  delete: (rest) => signedClient().call('DELETE', servicePath('delete', rest)),
};

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
      ...KERNEL_OPTIONS,
    },
  });
  const [name] = positionals;
  if (!name || !values.model) throw new UsageError('service create needs a NAME and --model FOLDER');
  const { resources, environ } = kernelConfig(values);
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
