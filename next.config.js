// The dashboard (app/) is served by Berth's own custom server (server/web/next-server.ts), so there is no
// `output: 'standalone'`: `next build` writes .next/ and the custom server loads it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const projectDir = path.dirname(fileURLToPath(import.meta.url));

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native or worker-thread packages of the manager core stay plain Node requires if a route ever imports them.
  serverExternalPackages: ['pino', 'pino-pretty', 'pg', '@electric-sql/pglite'],
  turbopack: { root: projectDir },
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'same-origin' },
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'Content-Security-Policy', value: "frame-ancestors 'none'" },
        ],
      },
    ];
  },
};

export default nextConfig;
