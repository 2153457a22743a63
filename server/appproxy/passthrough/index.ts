/**
 * The app proxy's pass-through path. node:http's server and client machinery cost ~70 µs of CPU per proxied
 * request on the bench machine (bench/apps.mjs), most of the proxy's time: parsing and re-serializing both
 * messages, IncomingMessage/ServerResponse/ClientRequest objects and their streams, and an agent. A reverse proxy
 * does not need most of it: once a request is admitted, its answer can go back byte for byte. So the app proxy's
 * server takes its connections first (PassConnection): an HTTP/1.1 request for an app or a model service whose
 * admission the caller grants is forwarded with its head rewritten (the same headers forward.ts sends) and its
 * body and answer passed through unchanged. Other requests (the proxy's own endpoints, refusals, tunneled
 * upstreams) go to node:http over an in-memory link (../../util/memory-link), one request at a time, and the full path
 * (server.ts) answers them exactly as before; the connection stays here, so a browser's app requests after its
 * /v2/proxy/auth on the same connection still pass through. What the path cannot frame or follow (WebSocket
 * upgrades, HTTP/1.0, Expect, ambiguous framing, an oversized head) hands the connection itself to node:http.
 */
import type http from 'node:http';
import type net from 'node:net';
import { PassConnection, type PassOptions } from './connection';
import { UpstreamPool } from './upstream-pool';
import { openMemoryLink } from '../../util/memory-link';

export type { PassTarget } from './connection';
export type { RequestHead, Headers } from './head';
export { serializeRequestHead } from './head';

export interface PassThrough {
  closeIdle(): void;
  closeAll(): void;
}

/**
 * Puts the pass-through path in front of `server`'s own connection handling. `closeIdleConnections` and
 * `closeAllConnections` of the server then cover its connections too.
 */
export function passThrough(server: http.Server, options: Pick<PassOptions, 'decide' | 'badGateway'>): PassThrough {
  const own = server.listeners('connection');
  if (own.length !== 1) throw new Error('passThrough: expected node:http\'s one connection listener');
  const nodeConnection = own[0] as (socket: net.Socket) => void;
  server.removeListener('connection', nodeConnection);
  const pool = new UpstreamPool();
  const open = new Map<net.Socket, PassConnection>();

  const handOff = (socket: net.Socket, buffered: Buffer | null) => {
    open.delete(socket);
    socket.pause();
    if (buffered) socket.unshift(buffered);
    nodeConnection.call(server, socket);
    socket.resume();
  };
  server.on('connection', (socket: net.Socket) => {
    const nodeLink = (client: net.Socket) => openMemoryLink(client, (link) => nodeConnection.call(server, link as net.Socket));
    open.set(socket, new PassConnection(socket, { ...options, pool, handOff, nodeLink, keepAliveMs: server.keepAliveTimeout }));
    socket.once('close', () => open.delete(socket));
  });

  const passing: PassThrough = {
    closeIdle: () => {
      for (const connection of open.values()) connection.closeIfIdle();
    },
    closeAll: () => {
      for (const connection of open.values()) connection.destroy();
      pool.closeAll();
    },
  };
  const closeIdle = server.closeIdleConnections.bind(server);
  const closeAll = server.closeAllConnections.bind(server);
  server.closeIdleConnections = () => {
    closeIdle();
    passing.closeIdle();
  };
  server.closeAllConnections = () => {
    closeAll();
    passing.closeAll();
  };
  server.on('close', () => pool.closeAll());
  return passing;
}
