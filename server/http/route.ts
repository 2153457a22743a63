/**
 * A route is data: method, path(s), privilege, required manager status, input schema and one handler.
 * The tables in server/api/*.ts read like the spec's; the pipeline (./pipeline) applies the rules once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { WebSocket } from 'ws';
import { Problem } from './problem';
import type { App } from '../app';
import type { Principal } from '../auth/principal';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `none`: anonymous; `user`: any valid keypair; `admin`: is_admin keypair; `superadmin`: role superadmin. */
export type Privilege = 'none' | 'user' | 'admin' | 'superadmin';

/** RUNNING: refused while frozen. FROZEN: served while frozen too. null: no status stated. */
export type RequiredStatus = 'RUNNING' | 'FROZEN' | null;

// The route table holds routes of every input type, so an unnamed input is Zod's own inferred `any`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export interface RequestContext<I = any> {
  app: App;
  req: IncomingMessage;
  res: ServerResponse;
  input: I;
  /** Set on every route whose privilege is not `none`. */
  principal: Principal;
  rawBody: Buffer;
  requestId: string;
  clientIp: string;
  /** Relayed by the dashboard for a browser (./relayed): answers hold no secret, and state changes only on writes. */
  relayed: boolean;
}

/** A non-JSON answer: text, YAML, bytes or a stream. */
export interface RawReply {
  kind: 'raw';
  status?: number;
  contentType: string;
  headers?: Record<string, string>;
  body: string | Buffer | Readable;
}

/** Returned by a handler that wrote the response itself (SSE streams). */
export const HANDLED = Symbol('handled');

export type HandlerResult = unknown | RawReply | typeof HANDLED;

export interface RouteDef<S extends z.ZodType = z.ZodType> {
  method: Method;
  /** One path, or aliases (hyphen/underscore variants) with identical inputs. `:name` marks a path parameter. */
  path: string | string[];
  privilege: Privilege;
  status: RequiredStatus;
  /** Validates the merged parameters (query or body, plus path parameters). */
  input?: S;
  /**
   * Fields of the validated input holding free text a person wrote (code, scripts, file contents, templates), as
   * dotted names (`config.environ`): they may hold control characters other than NUL; no other field may
   * (./control-characters).
   */
  freeText?: readonly string[];
  summary: string;
  /** `json` (default): a body must be a JSON object. `raw`: the handler reads ctx.rawBody itself (multipart, files). */
  body?: 'json' | 'raw';
  /** Largest accepted body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** The answer is a long-lived stream (Server-Sent Events), not one JSON body. */
  stream?: 'sse';
  /**
   * A WebSocket endpoint. `prepare` runs after every check and before the upgrade (so a missing session is an
   * HTTP 404, not a closed socket); `open` gets the open socket and what `prepare` returned.
   */
  websocket?: {
    prepare: (ctx: RequestContext<z.infer<S>>) => unknown;
    // What prepare returned, typed by the route that declares both (the route table holds every kind).
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
    open: (ctx: RequestContext<z.infer<S>>, prepared: any, socket: WebSocket) => void | Promise<void>;
    /** Extra headers on the 101 answer (e.g. an app relay's base path). */
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as open's
    headers?: (prepared: any) => Record<string, string>;
  };
  /** Response description for the OpenAPI document. */
  response?: string;
  handler: (ctx: RequestContext<z.infer<S>>) => HandlerResult | Promise<HandlerResult>;
}

/** The plain-HTTP answer of a WebSocket-only endpoint. */
export function upgradeRequired(): never {
  throw new Problem('upgrade-required', 'Connect to this endpoint with a WebSocket upgrade.');
}

/** Declares a route with its input type inferred from the schema. */
/** The `{}` that CONTRACT's mutations without a result answer, once `work` has succeeded. */
export async function emptyAfter(work: Promise<unknown>): Promise<Record<string, never>> {
  await work;
  return {};
}

export function route<S extends z.ZodType>(def: RouteDef<S>): RouteDef<S> {
  return def;
}

export function raw(contentType: string, body: RawReply['body'], extra: Partial<RawReply> = {}): RawReply {
  return { kind: 'raw', contentType, body, ...extra };
}

export function isRawReply(value: unknown): value is RawReply {
  return typeof value === 'object' && value !== null && (value as RawReply).kind === 'raw';
}
