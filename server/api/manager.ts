import type { RouteDef } from '../http/route';

export const managerRoutes: RouteDef[] = [];
