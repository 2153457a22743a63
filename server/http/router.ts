/** Builds the path router from route tables and tells 404 (no such path) from 405 (path known, method not). */
import FindMyWay from 'find-my-way';
import type { Method, RouteDef } from './route';

export interface RouteMatch {
  route: RouteDef;
  params: Record<string, string | undefined>;
}

const METHODS: Method[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

export class Router {
  private readonly fmw = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 500 });

  constructor(readonly routes: RouteDef[]) {
    for (const route of routes) {
      for (const path of paths(route)) {
        this.fmw.on(route.method, path, () => undefined, { route });
      }
    }
  }

  find(method: string, path: string): RouteMatch | null {
    const found = this.fmw.find(method as Method, path);
    if (!found) return null;
    return { route: (found.store as { route: RouteDef }).route, params: found.params };
  }

  /** Methods served at this path (for 405 and its Allow header). */
  allowed(path: string): Method[] {
    return METHODS.filter((m) => this.fmw.find(m, path) !== null);
  }
}

export function paths(route: RouteDef): string[] {
  return Array.isArray(route.path) ? route.path : [route.path];
}
