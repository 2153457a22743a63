/** Following a background task (GET /events/background-task) from the command line until it ends. */
import type { BerthClient } from '../client';
import { serverEvents } from './sse';

/** Prints progress to stderr as `<verb> N / M <unit>`; resolves on bgtask_done, throws on a failed or cancelled task. */
export async function followTask(client: BerthClient, taskId: string, what: { name: string; verb: string; unit: string }): Promise<{ message: string | null }> {
  const res = await client.open('GET', '/events/background-task', { query: { task_id: taskId } });
  if (res.statusCode !== 200) throw new Error(`following the ${what.name} failed (${res.statusCode})`);
  for await (const { event, data } of serverEvents(res)) {
    if (event === 'bgtask_updated') process.stderr.write(`${what.verb} ${data.current_progress ?? 0} / ${data.total_progress ?? '?'} ${what.unit}\n`);
    else if (event === 'bgtask_done') {
      res.destroy();
      return { message: (data.message as string | undefined) ?? null };
    } else if (event?.startsWith('bgtask_')) {
      res.destroy();
      throw new Error(`the ${what.name} ${event.slice(7)}: ${data.message ?? ''}`);
    }
  }
  throw new Error(`the server closed the event stream before the ${what.name} finished`);
}
