/**
 * Headers shared by the custom server (server/web/next-server.ts) and the dashboard's route handlers. Kept apart
 * from next-server.ts so route handlers import no server start-up code.
 */

/** The browser's address as the listener saw it; always overwritten by the custom server, never taken from outside. */
export const CLIENT_IP_HEADER = 'x-berth-client-ip';

/**
 * The manager path a dashboard API call is relayed to, still percent-encoded as the browser sent it (dot segments
 * resolved by the URL parser): set by the custom server when it hands /api/manager/<path> to the relay's one static
 * route (./relay-path routeToRelay), removed from every other request, so never taken from outside.
 */
export const RELAY_PATH_HEADER = 'x-berth-relay-path';
