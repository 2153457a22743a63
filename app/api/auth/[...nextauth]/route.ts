/**
 * next-auth's endpoints (sign-in, callback, session, CSRF token, sign-out, providers) under /api/auth. The options
 * are built for each request, so the providers follow the environment the dashboard runs with, not the build.
 */
import NextAuth from 'next-auth';
import type { NextRequest } from 'next/server';
import { authOptionsForRequest } from '@/app/lib/auth';

function handler(req: NextRequest, context: { params: Promise<{ nextauth: string[] }> }) {
  return NextAuth(req, context, authOptionsForRequest());
}

export { handler as GET, handler as POST };
