/** Following a background task (GET /events/background-task) from the command line until it ends. */
import type { BerthClient } from '../client';

/** Prints progress to stderr as `<verb> N / M <unit>`; resolves on bgtask_done, throws on a failed or cancelled task. */
export async function followTask(client: BerthClient, taskId: string, what: { name: string; verb: string; unit: string }): Promise<{ message: string | null }> {
  const res = await client.open('GET', '/events/background-task', { query: { task_id: taskId } });
  if (res.statusCode !== 200) throw new Error(`following the ${what.name} failed (${res.statusCode})`);
  let buffer = '';
  for await (const chunk of res) {
    buffer += chunk.toString();
    let split: number;
    while ((split = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, split);
      buffer = buffer.slice(split + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? '{}');
      if (event === 'bgtask_updated') process.stderr.write(`${what.verb} ${data.current_progress ?? 0} / ${data.total_progress ?? '?'} ${what.unit}\n`);
      else if (event === 'bgtask_done') {
        res.destroy();
        return { message: data.message ?? null };
      } else if (event?.startsWith('bgtask_')) {
        res.destroy();
        throw new Error(`the ${what.name} ${event.slice(7)}: ${data.message ?? ''}`);
      }
    }
  }
  throw new Error(`the server closed the event stream before the ${what.name} finished`);
}
