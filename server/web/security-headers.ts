/**
 * The headers next.config.js adds to every answer Next serves, for the answers the custom server gives itself
 * (./manager-relay) without passing through Next. test/unit/security-headers.test.ts keeps the two lists equal.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "frame-ancestors 'none'",
};
