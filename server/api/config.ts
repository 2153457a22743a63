import type { RouteDef } from '../http/route';

export const configRoutes: RouteDef[] = [];
