/**
 * What a route is called in metrics and the audit log: its pattern (`/session/{name}`), never the path a client
 * sent, and the path parameters a request named, read back from its path with the same pattern.
 */
import type { RouteDef } from '../http/route';

interface RouteShape {
  pattern: string;
  /** One per path alias: the regular expression and the parameter names in order. */
  matchers: { re: RegExp; names: string[] }[];
}

const shapes = new WeakMap<RouteDef, RouteShape>();

function shapeOf(route: RouteDef): RouteShape {
  let shape = shapes.get(route);
  if (shape) return shape;
  const paths = Array.isArray(route.path) ? route.path : [route.path];
  shape = {
    pattern: paths[0].replace(/:(\w+)/g, '{$1}'),
    matchers: paths.map((p) => {
      const names: string[] = [];
      const source = p
        .split(/(:\w+)/)
        .map((part) => {
          if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(part.slice(1));
          return '([^/]+)';
        })
        .join('');
      return { re: new RegExp(`^${source}/?$`), names };
    }),
  };
  shapes.set(route, shape);
  return shape;
}

/** The route's pattern as the spec writes it: `/session/{name}`. */
export function routePattern(route: RouteDef): string {
  return shapeOf(route).pattern;
}

/** The path parameters of a request to this route (`{name: "demo"}`), from its URL path. */
export function pathParameters(route: RouteDef, path: string): Record<string, string> {
  for (const { re, names } of shapeOf(route).matchers) {
    if (!names.length) continue;
    const m = re.exec(path);
    if (!m) continue;
    const out: Record<string, string> = {};
    names.forEach((name, i) => {
      try {
        out[name] = decodeURIComponent(m[i + 1]);
      } catch {
        out[name] = m[i + 1];
      }
    });
    return out;
  }
  return {};
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** A request method as a label value: the usual ones, else OTHER. */
export function methodLabel(method: string | undefined): string {
  return method && METHODS.has(method) ? method : 'OTHER';
}
