/**
 * Server-side only: the Origin check of state-changing requests (server/web/same-origin.ts) for route handlers.
 */
import type { NextRequest } from 'next/server';
import { isSameOrigin as sameOriginHeaders } from '@/server/web/same-origin';

export function isSameOrigin(req: NextRequest): boolean {
  return sameOriginHeaders((name) => req.headers.get(name));
}
