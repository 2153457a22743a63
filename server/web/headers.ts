/**
 * Headers shared by the custom server (server/web/next-server.ts) and the dashboard's route handlers. Kept apart
 * from next-server.ts so route handlers import no server start-up code.
 */

/** The browser's address as the listener saw it; always overwritten by the custom server, never taken from outside. */
export const CLIENT_IP_HEADER = 'x-berth-client-ip';
