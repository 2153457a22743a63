import type { RouteDef } from '../http/route';

export const resourceRoutes: RouteDef[] = [];
