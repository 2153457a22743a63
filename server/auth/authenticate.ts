/**
 * Verifies a signed request in the order of CONTRACT §2.3 (date, version, header form, access key, signature,
 * client IP) and returns the caller. One implementation; the signing itself lives in server/client/sign.
 */
import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { Problem } from '../http/problem';
import { parseAuthorization, parseRequestDate, sha256Hex, signatureValid, EMPTY_BODY_SHA256, type SignatureInput } from '../client/sign';
import { checkApiVersion } from './version';
import type { KeypairCache } from './keypair-cache';
import type { Principal } from './principal';

const MAX_SKEW_MS = 15 * 60 * 1000;

/**
 * The caller of a signed request. Synchronous when the keypair is cached (the hot path: no promise, no tick);
 * a promise only when the keypair has to be read from the database.
 */
export function authenticate(
  req: IncomingMessage,
  body: Buffer,
  keypairs: KeypairCache,
  clientIp: string,
  now = Date.now(),
): Principal | Promise<Principal> {
  const authorization = req.headers.authorization;
  if (!authorization) throw new Problem('auth-failed', 'Authorization header is missing.');

  const rawDate = (req.headers['date'] as string | undefined) ?? (req.headers['x-svc-date'] as string | undefined);
  const date = parseRequestDate(rawDate);
  if (!date || Math.abs(now - date.getTime()) >= MAX_SKEW_MS) {
    throw new Problem('invalid-auth-params', 'Date/time sync error');
  }
  const version = req.headers['x-svc-version'];
  checkApiVersion(typeof version === 'string' ? version : undefined);

  const parsed = parseAuthorization(authorization);
  if (!parsed) throw new Problem('invalid-auth-params', 'Malformed Authorization header.');
  if (parsed.hash !== 'SHA256') throw new Problem('invalid-auth-params', `Unsupported signing method HMAC-${parsed.hash}.`);

  const request: SignatureInput = {
    method: req.method ?? 'GET',
    uri: req.url ?? '/',
    date,
    host: req.headers.host ?? '',
    contentType: (req.headers['content-type'] as string | undefined) ?? '',
    version: version as string,
    bodySha256: body.length ? sha256Hex(body) : EMPTY_BODY_SHA256,
  };
  const verify = (principal: Principal | null) => verifyCaller(principal, request, parsed.signature, clientIp);
  const cached = keypairs.peek(parsed.accessKey);
  return cached === undefined ? keypairs.get(parsed.accessKey).then(verify) : verify(cached);
}

function verifyCaller(principal: Principal | null, request: SignatureInput, signature: string, clientIp: string): Principal {
  if (!principal) throw new Problem('auth-failed', 'Access key not found');
  if (!signatureValid(principal.secretKey, request, signature)) throw new Problem('auth-failed', 'Signature mismatch');
  if (principal.allowedClientIp?.length && !ipAllowed(clientIp, principal.allowedClientIp)) {
    throw new Problem('auth-failed', 'Your client IP address is not allowed.');
  }
  return principal;
}

/** The first X-Forwarded-For hop, else the peer address. */
export function clientAddress(req: IncomingMessage): string {
  const forwarded = req.headers['x-forwarded-for'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  return first || req.socket.remoteAddress || '';
}

function ipAllowed(ip: string, allowed: string[]): boolean {
  const address = ip.replace(/^::ffff:/, '');
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  const list = new BlockList();
  for (const entry of allowed) {
    const [net, bits] = entry.split('/');
    const entryFamily = isIP(net) === 6 ? 'ipv6' : 'ipv4';
    if (!isIP(net)) continue;
    if (bits) list.addSubnet(net, Number(bits), entryFamily);
    else list.addAddress(net, entryFamily);
  }
  return isIP(address) !== 0 && list.check(address, family);
}
