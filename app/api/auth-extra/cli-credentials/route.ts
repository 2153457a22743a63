/**
 * POST /api/auth-extra/cli-credentials — the signed-in user's keypair as the CLI's credentials file, downloaded by a
 * plain form submission from Settings (server/web/cli-credentials.ts says why only a navigation gets it).
 */
import type { NextRequest } from 'next/server';
import { problemResponse } from '@/app/lib/manager';
import { isSameOrigin } from '@/app/lib/origin';
import { sessionKeys } from '@/server/web/session-keys';
import { cliCredentialsFile, isDocumentNavigation } from '@/server/web/cli-credentials';

export const dynamic = 'force-dynamic';

export async function POST(req: NextRequest): Promise<Response> {
  if (!isSameOrigin(req)) return problemResponse('generic-forbidden', 'Cross-origin requests to the dashboard API are refused.');
  if (!isDocumentNavigation((name) => req.headers.get(name))) {
    return problemResponse('generic-forbidden', 'The credentials file is only handed to a form submission, never to a script.');
  }
  const keys = await sessionKeys({ cookie: req.headers.get('cookie') });
  if (!keys) return problemResponse('auth-failed', 'Sign in first.');
  const endpoint = process.env.BERTH_PUBLIC_MANAGER_URL || process.env.BERTH_MANAGER_URL || 'http://127.0.0.1:8081';
  return new Response(cliCredentialsFile(keys, endpoint), {
    headers: {
      'Content-Type': 'application/json',
      'Content-Disposition': 'attachment; filename="berth-credentials.json"',
      'Cache-Control': 'no-store',
    },
  });
}
