import type { RouteDef } from '../http/route';

export const graphqlRoutes: RouteDef[] = [];
