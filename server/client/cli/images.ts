/** `berth image …`: images on the Docker engines from a terminal (superadmin). */
import { parseArgs } from 'node:util';
import { signedClient, UsageError } from './credentials';
import { followTask } from './tasks';

export async function image(args: string[]): Promise<unknown> {
  const [sub, ...rest] = args;
  if (sub === 'load') return load(rest);
  throw new UsageError(`unknown image command: ${sub ?? '(none)'}`);
}

/** Loads a `docker save` archive already uploaded to a folder (`berth folder upload`), and waits until it is in. */
async function load(args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { agent: { type: 'string', multiple: true } } });
  const [folder, archive] = positionals;
  if (!folder || !archive) throw new UsageError('image load needs FOLDER and PATH (the archive inside the folder)');
  const client = signedClient();
  const { task_id } = await client.call('POST', '/image/load', { body: { folder, path: archive, ...(values.agent ? { agents: values.agent } : {}) } });
  const { message } = await followTask(client, task_id, { name: 'load', verb: 'loaded onto', unit: 'engines' });
  return { task_id, status: 'done', message };
}
