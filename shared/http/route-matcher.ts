import type { HttpRoute } from '../routes.js';

/**
 * What a (method, path) is to the route table. Path parameter values are raw (still percent-encoded); a greedy
 * parameter (`{name+}`, API Gateway's syntax) holds the rest of the path, slashes included, under `name`.
 */
export type RouteMatch =
  | { kind: 'route'; route: HttpRoute; rawPathParameters: Record<string, string> }
  /** The path is known, but not for this method: `allow` lists the methods it has, for the `Allow` header. */
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

/** One path template of the table with the routes of its methods. */
interface CompiledPath {
  pattern: RegExp;
  paramNames: string[];
  specificity: number[];
  byMethod: Map<string, HttpRoute>;
}

/** The order `Allow` lists methods in. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

function compile(path: string, routes: HttpRoute[]): CompiledPath {
  const segments = path.split('/').filter(Boolean);
  const paramNames: string[] = [];
  const source = segments
    .map((segment, i) => {
      const param = /^\{(\w+)(\+?)\}$/.exec(segment);
      if (param) {
        paramNames.push(param[1]!);
        if (!param[2]) return '/([^/]+)';
        // API Gateway allows a greedy parameter only as the last segment; it takes one or more segments.
        if (i !== segments.length - 1)
          throw new Error(`${path}: a greedy parameter must be the path's last segment`);
        return '/([^/]+(?:/[^/]+)*)';
      }
      return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    })
    .join('');
  // Like API Gateway, a literal segment wins over a parameter at the same position, and a parameter over a
  // greedy one, the first difference deciding.
  const specificity = segments.map((s) => (s.endsWith('+}') ? -0.5 : s.startsWith('{') ? 0 : 1));
  return {
    pattern: new RegExp(`^${source || '/'}$`),
    paramNames,
    specificity,
    byMethod: new Map(routes.map((route) => [route.method, route])),
  };
}

function moreSpecificFirst(a: CompiledPath, b: CompiledPath): number {
  for (let i = 0; i < Math.max(a.specificity.length, b.specificity.length); i++) {
    const diff = (b.specificity[i] ?? -1) - (a.specificity[i] ?? -1);
    if (diff !== 0) return diff;
  }
  return 0;
}

/**
 * Matches requests against the route table in two steps. First the path alone resolves to one path template:
 * the most specific that matches (a literal segment wins over a parameter, so `/v1/incidents/stats` is that
 * path, never `/v1/incidents/{id}` with id "stats"). Then the method: the template's route for it, or else 405
 * whose `Allow` lists exactly that template's methods, the ones the description documents for the path.
 *
 * Used by the local gateway and by the `$default` function in AWS (functions/platform/unmatched-route.ts). API
 * Gateway itself picks among the route keys of the request's method; the pairs where that differs are sent to
 * `$default` by route keys of their own (shared/routes/shadowed-keys.ts, lib/api.ts).
 */
export function createRouteMatcher(
  routes: readonly HttpRoute[],
): (method: string, path: string) => RouteMatch {
  const byPath = new Map<string, HttpRoute[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  const compiled = [...byPath].map(([path, same]) => compile(path, same)).sort(moreSpecificFirst);
  return (method, path) => {
    for (const candidate of compiled) {
      const found = candidate.pattern.exec(path);
      if (!found) continue;
      const route = candidate.byMethod.get(method);
      if (!route)
        return {
          kind: 'method-not-allowed',
          allow: METHOD_ORDER.filter((m) => candidate.byMethod.has(m)),
        };
      const values = found.slice(1);
      return {
        kind: 'route',
        route,
        rawPathParameters: Object.fromEntries(candidate.paramNames.map((n, i) => [n, values[i]!])),
      };
    }
    return { kind: 'not-found' };
  };
}
