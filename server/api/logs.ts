import type { RouteDef } from '../http/route';

export const logRoutes: RouteDef[] = [];
