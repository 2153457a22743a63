/**
 * Requests the dashboard relays for a browser. The dashboard's relays (app/api/manager, the WebSocket and storage
 * relays) set RELAYED_HEADER on every request they forward, and never pass the browser's own headers of that name
 * through: their requests carry only an allow-list of the browser's headers. So a script in a page cannot send a
 * request without the mark, and the manager, seeing it, answers with no secret in it: the REST layer leaves the
 * fields named below out of every JSON answer and event, and GraphQL refuses documents that select secret fields
 * (server/graphql/secret-fields.ts). The mark only ever takes rights away, so nobody gains by forging it.
 *
 * The dashboard's own server-side handlers that need a key (next-auth's login, sign-up, the admin keypair page,
 * generating an SSH keypair) call the manager directly, without the mark; what they hand the browser is theirs to
 * decide (they keep keys and hand out masked ids).
 */
import type { IncomingMessage } from 'node:http';

export const RELAYED_HEADER = 'x-berth-relayed';

export function isRelayed(req: IncomingMessage): boolean {
  return req.headers[RELAYED_HEADER] !== undefined;
}

/**
 * Names of fields that hold a credential, as REST answers and events spell them. An access key alone signs
 * nothing, but it names a keypair and is half of one: the dashboard never shows it either.
 */
export const SECRET_FIELDS = new Set([
  'access_key',
  'secret_key',
  'main_access_key',
  'owner_access_key',
  'ssh_private_key',
  'password',
  'wsproxy_api_token',
  'accessKey',
  'secretKey',
  'ownerAccessKey',
  'sshPrivateKey',
]);

/**
 * How every secret field name ends, as JSON.stringify writes a key (it never escapes these characters): an answer
 * without it needs no second pass (one scan: ~15 µs for 19 KB). Kept in step with SECRET_FIELDS by a test.
 */
export const SECRET_ENDING = /(?:[kK]ey|password|token)":/;

const withoutSecrets = (key: string, value: unknown) => (SECRET_FIELDS.has(key) ? undefined : value);

/**
 * `value` as JSON, without any secret field at any depth when the request was relayed. The answer is written
 * plainly first; only one in which a key could be named is written again without the secret fields.
 */
export function answerJson(value: unknown, relayed: boolean): string {
  const text = JSON.stringify(value);
  if (!relayed || text === undefined || !SECRET_ENDING.test(text)) return text;
  return JSON.stringify(value, withoutSecrets);
}
