/**
 * Who may scrape GET /metrics: a bearer holding BERTH_METRICS_TOKEN (compared in constant time), or a request
 * signed by a superadmin (verified by the one authenticate()). Anything else is 401 (or 403 for a signed caller
 * who is not a superadmin); a refusal of presented credentials is written to the audit log.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { App } from '../app';
import { authenticate } from '../auth/authenticate';
import { isSuperadmin } from '../auth/principal';
import { Problem } from '../http/problem';
import { auditOf } from '../audit/writer';

const BEARER = /^Bearer(?:\s+(.*))?$/i;

function sameSecret(given: string, expected: string): boolean {
  // Hashes first: equal lengths for timingSafeEqual, and no timing that depends on the token's length.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export interface ScrapeRequest {
  req: IncomingMessage;
  rawBody: Buffer;
  clientIp: string;
  requestId: string;
}

interface Refusal {
  problem: Problem;
  /** The signed caller who was refused, when there was one. */
  actor?: { email: string; accessKey: string };
}

/** null when the scrape may go on. Errors of the signature check (authenticate) are refusals too. */
async function refusal(app: App, { req, rawBody, clientIp }: ScrapeRequest): Promise<Refusal | null> {
  const authorization = req.headers.authorization;
  if (!authorization) return { problem: new Problem('auth-failed', 'Scraping needs Authorization: Bearer <BERTH_METRICS_TOKEN>, or a request signed by a superadmin.') };
  const bearer = BEARER.exec(authorization);
  if (bearer) {
    const expected = app.settings.metricsToken;
    return expected && bearer[1] && sameSecret(bearer[1].trim(), expected) ? null : { problem: new Problem('auth-failed', 'The metrics token is not valid.') };
  }
  try {
    const principal = await authenticate(req, rawBody, app.keypairs, clientIp);
    if (isSuperadmin(principal)) return null;
    return { problem: new Problem('insufficient-privilege', 'Scraping metrics needs superadmin privilege.'), actor: { email: principal.email, accessKey: principal.accessKey } };
  } catch (err) {
    if (err instanceof Problem) return { problem: err };
    throw err;
  }
}

/** Refuses (and audits) a scrape that may not read the metrics. */
export async function authorizeScrape(app: App, request: ScrapeRequest): Promise<void> {
  const refused = await refusal(app, request);
  if (!refused) return;
  // Presented credentials that do not hold are worth a record; a bare probe without any is not.
  if (request.req.headers.authorization) {
    auditOf(app).record({
      created_at: new Date(),
      actor_email: refused.actor?.email ?? null,
      access_key: refused.actor?.accessKey ?? null,
      client_ip: request.clientIp,
      action: 'GET /metrics',
      target: null,
      status: String(refused.problem.status),
      request_id: request.requestId,
    });
  }
  throw refused.problem;
}
