/**
 * GET /api/healthz (issue 14): the dashboard's unsigned liveness probe for a process supervisor or a load
 * balancer, like the manager's /healthz: 200 while this server answers. Readiness lives on the manager (/readyz).
 */
export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json({ status: 'ok' }, { headers: { 'Cache-Control': 'no-store' } });
}
