import { describe, expect, it } from 'vitest';
import type { NextConfig } from 'next';
// @ts-expect-error: next.config.js is plain JavaScript, without type declarations.
import config from '../../next.config.js';
import { relayedUri } from '../../server/web/manager-relay';
import { SECURITY_HEADERS } from '../../server/web/security-headers';

const nextConfig = config as NextConfig;

describe('the manager relay in the custom server', () => {
  it('takes /api/manager/… and nothing else, with dot segments resolved first', () => {
    expect(relayedUri('/api/manager/v2')).toBe('/v2');
    expect(relayedUri('/api/manager/session/a%20b?x=1&y=%2F')).toBe('/session/a%20b?x=1&y=%2F');
    expect(relayedUri('/api/manager')).toBe('/');
    expect(relayedUri('/api/manager?x=1')).toBe('/?x=1');
    expect(relayedUri('/api/manager//gql')).toBe('//gql');
    expect(relayedUri('/api/managers/v2')).toBeNull();
    expect(relayedUri('/api/manager/../auth/session')).toBeNull();
    expect(relayedUri('/api/storage/upload')).toBeNull();
    expect(relayedUri('/sessions')).toBeNull();
    expect(relayedUri(undefined)).toBeNull();
  });

  it("adds the same security headers as Next's configuration", async () => {
    const rules = await nextConfig.headers!();
    const everyPath = rules.find((rule) => rule.source === '/:path*');
    expect(Object.fromEntries(everyPath!.headers.map((h) => [h.key, h.value]))).toEqual(SECURITY_HEADERS);
  });
});
