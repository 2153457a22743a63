/** `berth config get|set|delete`: the raw configuration store (superadmin). */
import { parseArgs } from 'node:util';
import { signedClient, UsageError } from './credentials';

export async function config(args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { prefix: { type: 'boolean', default: false } } });
  const [action, key, value] = positionals;
  if (!key) throw new UsageError('config needs a KEY');
  if (action === 'get') return signedClient().call('POST', '/config/get', { body: { key, prefix: values.prefix } });
  if (action === 'delete') return signedClient().call('POST', '/config/delete', { body: { key, prefix: values.prefix } });
  if (action === 'set') {
    if (value === undefined) throw new UsageError('config set needs a VALUE');
    return signedClient().call('POST', '/config/set', { body: { key, value } });
  }
  throw new UsageError(`unknown config action: ${action ?? ''}`);
}
