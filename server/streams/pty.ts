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
import type { RunnerConnection, RunnerEvent } from '../agents/channel/connection';
import { touchSession } from '../culling/activity';

const frame = z.discriminatedUnion('type', [
  z.object({ type: z.literal('stdin'), chars: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/) }),
  z.object({ type: z.literal('resize'), rows: z.number().int().min(1).max(1000), cols: z.number().int().min(1).max(1000) }),
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('restart') }),
]);

/** A terminal whose first output (the prompt) is kept until servePty attaches, so nothing is lost. */
export interface OpenTerminal {
  connection: RunnerConnection;
  early: RunnerEvent[];
  stopBuffering: () => void;
}

export async function openTerminal(app: App, session: Session, rows = 25, cols = 80): Promise<OpenTerminal> {
  const kernel = await mainKernel(app, session);
  const connection = await app.agents.get(kernel.agent_id!)!.pty(kernel.id, rows, cols);
  const early: RunnerEvent[] = [];
  const keep = (event: RunnerEvent) => early.push(event);
  connection.on('event', keep);
  return { connection, early, stopBuffering: () => connection.off('event', keep) };
}

export function servePty(app: App, session: Session, first: OpenTerminal, ws: WebSocket): void {
  let terminal = first.connection;
  let size = { rows: 25, cols: 80 };
  let closed = false;
  /** While the kernel restarts, its old terminal goes away: that must not close the socket. */
  let restarting = false;

  const onEvent = (event: RunnerEvent) => {
    if (event.t === 'out') ws.send(JSON.stringify({ type: 'out', data: event.b64 }));
    else if (event.t === 'exit') {
      ws.send(JSON.stringify({ type: 'error', data: `The shell exited (code ${event.code}).` }));
      ws.close(1000, 'shell exited');
    }
  };
  const attach = (connection: RunnerConnection) => {
    // Only the current terminal speaks: the old shell's exit during a restart must not end the socket.
    connection.on('event', (event: RunnerEvent) => {
      if (terminal === connection && !restarting) onEvent(event);
    });
    connection.on('close', () => {
      if (!closed && !restarting && terminal === connection) ws.close(1011, 'terminal closed');
    });
  };
  first.stopBuffering();
  attach(terminal);
  for (const event of first.early) onEvent(event);

  ws.on('message', async (data, isBinary) => {
    let message: z.infer<typeof frame>;
    try {
      if (isBinary) throw new Error('binary');
      message = frame.parse(JSON.parse(data.toString('utf8')));
    } catch {
      ws.close(1003, 'malformed frame');
      return;
    }
    if (message.type === 'stdin') {
      touchSession(session.id);
      terminal.send({ op: 'stdin', b64: message.chars });
    } else if (message.type === 'resize') {
      size = { rows: message.rows, cols: message.cols };
      terminal.send({ op: 'resize', ...size });
    } else if (message.type === 'restart') {
      const previous = terminal;
      restarting = true;
      try {
        const current = await app.db.selectFrom('sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow();
        await restartSession(app, current);
        const reopened = await openTerminal(app, current, size.rows, size.cols);
        reopened.stopBuffering();
        terminal = reopened.connection;
        previous.close();
        attach(terminal);
        for (const event of reopened.early) onEvent(event);
      } catch (err) {
        ws.send(JSON.stringify({ type: 'error', data: `Restart failed: ${err instanceof Error ? err.message : String(err)}` }));
        ws.close(1011, 'restart failed');
      } finally {
        restarting = false;
      }
    }
  });
  ws.on('close', () => {
    closed = true;
    terminal.close();
  });
}
