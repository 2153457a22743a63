/** next-auth's endpoints (sign-in, callback, session, CSRF token, sign-out) under /api/auth. */
import NextAuth from 'next-auth';
import { authOptions } from '@/app/lib/auth';

const handler = NextAuth(authOptions);

export { handler as GET, handler as POST };
