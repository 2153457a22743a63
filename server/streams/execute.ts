/**
 * GET /stream/session/{name}/execute (CONTRACT §8.3): one run per socket. The first client frame says what to
 * run; output is pushed every 0.2 s as {status, console, exitCode, options, files}; while waiting for input the
 * next client frame is the input text. After `finished` the server closes (1000); a client that leaves first
 * interrupts the run.
 */
import type { WebSocket } from 'ws';
import { z } from 'zod';
import type { App } from '../app';
import type { Session } from '../db/schema';
import { mainKernel, mergeConsole, queryRefusal, type ConsoleItem } from '../sessions/execute';
import type { RunnerEvent } from '../agents/channel/connection';
import { holdSession } from '../culling/activity';

export const WS_FLUSH_MS = 200;

const start = z.object({
  mode: z.enum(['query', 'batch']),
  code: z.string().default(''),
  options: z.record(z.string(), z.unknown()).nullish(),
});

export function serveExecute(app: App, session: Session, ws: WebSocket): void {
  let started = false;
  let waitingInput = false;
  let finished = false;
  let send: ((message: object) => void) | null = null;
  let clientGone = false;
  ws.on('close', () => (clientGone = true));

  const fail = (msg: string, code = 1003) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ status: 'error', msg }));
    ws.close(code, msg.slice(0, 100));
  };

  ws.on('message', async (data, isBinary) => {
    if (!started) {
      started = true;
      let request: z.infer<typeof start>;
      try {
        if (isBinary) throw new Error('binary');
        request = start.parse(JSON.parse(data.toString('utf8')));
      } catch {
        return fail('The first frame must be {"mode":"query"|"batch","code":…,"options":…}.');
      }
      try {
        const kernel = await mainKernel(app, session);
        const refusal = request.mode === 'query' ? queryRefusal(kernel) : null;
        if (refusal) return fail(refusal);
        const connection = await app.agents.get(kernel.agent_id!)!.execute(kernel.id, { mode: request.mode, code: request.code, options: request.options ?? {} });
        send = (message) => connection.send(message);
        holdSession(session.id, connection);
        pump(connection);
        const leave = () => {
          if (!finished) connection.send({ op: 'interrupt' });
          connection.close();
        };
        // The client may have left while the run was being set up: interrupt at once rather than never.
        if (clientGone) leave();
        else ws.on('close', leave);
      } catch (err) {
        fail(err instanceof Error ? err.message : String(err), 1011);
      }
      return;
    }
    if (waitingInput && send && !isBinary) {
      waitingInput = false;
      send({ op: 'input', text: data.toString('utf8') });
    } else if (!waitingInput) {
      fail('Unexpected frame: the run is not waiting for input.');
    }
  });

  function pump(connection: import('../agents/channel/connection').RunnerConnection) {
    let items: ConsoleItem[] = [];
    const flush = (status: string, exitCode: number | null = null, options: object | null = null) => {
      if (ws.readyState !== ws.OPEN) return;
      ws.send(JSON.stringify({ status, console: mergeConsole(items), exitCode, options, files: [] }));
      items = [];
    };
    const timer = setInterval(() => items.length && flush('continued'), WS_FLUSH_MS);
    connection.on('event', (event: RunnerEvent) => {
      if (event.t === 'stdout' || event.t === 'stderr') items.push([event.t, String(event.d)]);
      else if (event.t === 'waiting-input') {
        waitingInput = true;
        flush('waiting-input', null, { is_password: Boolean(event.password) });
      } else if (event.t === 'status') flush(event.status, Number(event.exitCode));
      else if (event.t === 'finished') {
        finished = true;
        clearInterval(timer);
        flush('finished', Number(event.exitCode));
        ws.close(1000, 'finished');
      }
    });
    connection.on('close', () => {
      clearInterval(timer);
      if (!finished) {
        finished = true;
        flush('finished', 130, {});
        ws.close(1000, 'kernel gone');
      }
    });
  }
}
