/**
 * A typed client for the manager API: signs every request with ./sign and keeps connections alive.
 * Used by the CLI, the dashboard's backend-for-frontend, the tests and the benchmarks.
 */
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { signRequest, API_VERSION } from './sign';

export interface Credentials {
  accessKey: string;
  secretKey: string;
}

export interface ClientOptions extends Partial<Credentials> {
  /** e.g. http://127.0.0.1:8081 */
  endpoint: string;
  version?: string;
  agent?: http.Agent;
  /** Sends the client's requests instead of its own sockets (the dashboard's thread: server/web/manager-port.ts). */
  transport?: Transport;
}

/** The keys and version a request is signed with where it is sent (`wireHeaders`). */
export interface SigningKeys extends Credentials {
  version: string;
  /** The signing date (tests of clock skew); the moment of sending when absent. */
  date?: Date;
}

/** A request ready to go on the wire but for its signature: the endpoint's base path and the query in `path`. */
export interface WireRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Absent: sent unsigned, its Content-Type already in `headers`. */
  signWith?: SigningKeys;
}

/** The headers `request` goes on the wire with: its own, and its signature's (./sign) when it is signed. */
export function wireHeaders({ method, path, headers, body, signWith }: WireRequest): Record<string, string> {
  if (!signWith) return headers;
  const { accessKey, secretKey, version, date } = signWith;
  const host = headers.Host;
  return { ...headers, ...signRequest({ method, uri: path, host, accessKey, secretKey, body, contentType: headers['Content-Type'], version, date }) };
}

/** An answer read as node:http's IncomingMessage is read: its status, its headers and its body as a byte stream. */
export type WireAnswer = Readable & { statusCode?: number; headers: http.IncomingHttpHeaders };

/** Sends a wire request to the client's endpoint and answers its response, unread. */
export type Transport = (request: WireRequest) => Promise<WireAnswer>;

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null | string[]>;
  /** A value to send as JSON, or raw bytes/text sent as they are. */
  body?: unknown;
  rawBody?: Buffer | string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Sign the request (default true when credentials are set). */
  signed?: boolean;
  /** Override the signing date (tests of clock skew). */
  date?: Date;
}

export class ApiResponse {
  constructor(
    readonly status: number,
    readonly headers: http.IncomingHttpHeaders,
    readonly body: Buffer,
  ) {}
  get text(): string {
    return this.body.toString('utf8');
  }
  // A caller that names no type reads untyped JSON (the CLI and tests print or assert on it as it came).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  json<T = any>(): T {
    return JSON.parse(this.text) as T;
  }
  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }
}

/** An error answer from the API (problem+json), thrown by BerthClient.call. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: { type?: string; title?: string; detail?: string; [k: string]: unknown },
  ) {
    super(`${status} ${problem.title ?? ''}: ${problem.detail ?? ''}`.trim());
  }
}

export function buildQuery(query: RequestOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.append(key, Array.isArray(value) ? JSON.stringify(value) : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export class BerthClient {
  readonly endpoint: URL;
  private readonly agent: http.Agent;

  /** `endpoint`: options.endpoint already parsed (withCredentials, once per relayed call, skips parsing it again). */
  constructor(
    private readonly options: ClientOptions,
    endpoint?: URL,
  ) {
    this.endpoint = endpoint ?? new URL(options.endpoint);
    const Agent = this.endpoint.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = options.agent ?? new Agent({ keepAlive: true, maxSockets: 64 });
  }

  withCredentials(credentials: Credentials): BerthClient {
    return new BerthClient({ ...this.options, ...credentials, agent: this.agent }, this.endpoint);
  }

  /** Sends one request and returns the raw response, whatever its status. */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const res = await this.open(method, path, options);
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return new ApiResponse(res.statusCode ?? 0, res.headers, Buffer.concat(chunks));
  }

  /** Sends one request and hands back the response stream unread (Server-Sent Events, downloads). */
  open(method: string, path: string, options: RequestOptions = {}): Promise<WireAnswer> {
    const request = this.prepare(method, path, options);
    if (this.options.transport) return this.options.transport(request);
    const transport = this.endpoint.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(
        { host: this.endpoint.hostname, port: this.endpoint.port, method, path: request.path, headers: wireHeaders(request), agent: this.agent },
        resolve,
      );
      req.on('error', reject);
      req.end(request.body);
    });
  }

  /**
   * The request `open` sends: the endpoint's path prefixed, the query added, the body encoded, and the keys it is
   * signed with when it goes out (a transport signs it where it sends it, on another thread: `wireHeaders`).
   */
  prepare(method: string, path: string, options: RequestOptions = {}): WireRequest {
    const body =
      options.rawBody !== undefined
        ? Buffer.isBuffer(options.rawBody)
          ? options.rawBody
          : Buffer.from(options.rawBody)
        : options.body !== undefined
          ? Buffer.from(JSON.stringify(options.body))
          : undefined;
    const headers: Record<string, string> = { Host: this.endpoint.host, ...options.headers, 'Content-Type': options.contentType ?? 'application/json' };
    if (body) headers['Content-Length'] = String(body.length);
    const { accessKey, secretKey } = this.options;
    const signed = options.signed ?? Boolean(accessKey && secretKey);
    return {
      method,
      path: `${this.endpoint.pathname.replace(/\/$/, '')}${path}${buildQuery(options.query)}`,
      headers,
      body,
      signWith: signed ? { accessKey: accessKey!, secretKey: secretKey!, version: this.options.version ?? API_VERSION, date: options.date } : undefined,
    };
  }

  /** The URL and signed headers of a bodiless GET (a WebSocket upgrade: see ./websocket). */
  upgradeRequest(path: string, query?: RequestOptions['query']): { url: string; headers: Record<string, string> } {
    const uri = `${this.endpoint.pathname.replace(/\/$/, '')}${path}${buildQuery(query)}`;
    const host = this.endpoint.host;
    const headers: Record<string, string> = { Host: host };
    if (this.options.accessKey && this.options.secretKey) {
      Object.assign(headers, signRequest({ method: 'GET', uri, host, accessKey: this.options.accessKey, secretKey: this.options.secretKey, version: this.options.version ?? API_VERSION }));
    }
    return { url: `${this.endpoint.protocol === 'https:' ? 'wss' : 'ws'}://${host}${uri}`, headers };
  }

  /** Sends a request and returns its JSON body; throws ApiError on a non-2xx answer. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as json() above
  async call<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.request(method, path, options);
    const isJson = String(response.headers['content-type'] ?? '').includes('json');
    if (!response.ok) throw new ApiError(response.status, isJson ? response.json() : { detail: response.text });
    return (isJson ? response.json() : response.text) as T;
  }

  close(): void {
    if (!this.options.agent) this.agent.destroy();
  }
}
