/**
 * GET /stream/session/{name}/pty (CONTRACT §8.4): a real terminal in the session's sandbox. Client frames are
 * JSON: stdin (base64), resize, ping, restart; the server sends `out` (base64) and `error`. A malformed frame
 * closes this socket (1003) and its terminal only; the session is untouched.
 */
import type { WebSocket } from 'ws';
import { z } from 'zod';
import type { App } from '../app';
import type { Session } from '../db/schema';
import { mainKernel } from '../sessions/execute';
import { restartSession } from '../sessions/restart';
import type { RunnerConnection } from '../agents/local/runner-client';

const frame = z.discriminatedUnion('type', [
  z.object({ type: z.literal('stdin'), chars: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/) }),
  z.object({ type: z.literal('resize'), rows: z.number().int().min(1).max(1000), cols: z.number().int().min(1).max(1000) }),
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('restart') }),
]);

export async function openTerminal(app: App, session: Session, rows = 25, cols = 80): Promise<RunnerConnection> {
  const kernel = await mainKernel(app, session);
  return app.agents.get(kernel.agent_id!)!.pty(kernel.id, rows, cols);
}

export function servePty(app: App, session: Session, first: RunnerConnection, ws: WebSocket): void {
  let terminal = first;
  let size = { rows: 25, cols: 80 };
  let closed = false;

  const attach = (connection: RunnerConnection) => {
    connection.on('event', (event) => {
      if (event.t === 'out') ws.send(JSON.stringify({ type: 'out', data: event.b64 }));
      else if (event.t === 'exit') {
        ws.send(JSON.stringify({ type: 'error', data: `The shell exited (code ${event.code}).` }));
        ws.close(1000, 'shell exited');
      }
    });
    connection.on('close', () => {
      if (!closed && terminal === connection) ws.close(1011, 'terminal closed');
    });
  };
  attach(terminal);

  ws.on('message', async (data, isBinary) => {
    let message: z.infer<typeof frame>;
    try {
      if (isBinary) throw new Error('binary');
      message = frame.parse(JSON.parse(data.toString('utf8')));
    } catch {
      ws.close(1003, 'malformed frame');
      return;
    }
    if (message.type === 'stdin') terminal.send({ op: 'stdin', b64: message.chars });
    else if (message.type === 'resize') {
      size = { rows: message.rows, cols: message.cols };
      terminal.send({ op: 'resize', ...size });
    } else if (message.type === 'restart') {
      const previous = terminal;
      try {
        const current = await app.db.selectFrom('sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow();
        await restartSession(app, current);
        terminal = await openTerminal(app, current, size.rows, size.cols);
        previous.close();
        attach(terminal);
      } catch (err) {
        ws.send(JSON.stringify({ type: 'error', data: `Restart failed: ${err instanceof Error ? err.message : String(err)}` }));
      }
    }
  });
  ws.on('close', () => {
    closed = true;
    terminal.close();
  });
}
