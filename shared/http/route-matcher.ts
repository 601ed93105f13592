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

interface CompiledRoute {
  route: HttpRoute;
  pattern: RegExp;
  paramNames: string[];
  specificity: number[];
}

/** The order `Allow` lists methods in. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

function compile(route: HttpRoute): CompiledRoute {
  const segments = route.path.split('/').filter(Boolean);
  const paramNames: string[] = [];
  const source = segments
    .map((segment, i) => {
      const param = /^\{(\w+)(\+?)\}$/.exec(segment);
      if (param) {
        paramNames.push(param[1]!);
        if (!param[2]) return '/([^/]+)';
        // API Gateway allows a greedy parameter only as the last segment; it takes one or more segments.
        if (i !== segments.length - 1)
          throw new Error(`${route.path}: a greedy parameter must be the path's last segment`);
        return '/([^/]+(?:/[^/]+)*)';
      }
      return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    })
    .join('');
  // Like API Gateway, a literal segment wins over a parameter at the same position, and a parameter over a
  // greedy one.
  const specificity = segments.map((s) => (s.endsWith('+}') ? -0.5 : s.startsWith('{') ? 0 : 1));
  return { route, pattern: new RegExp(`^${source || '/'}$`), paramNames, specificity };
}

function moreSpecificFirst(a: CompiledRoute, b: CompiledRoute): number {
  for (let i = 0; i < Math.max(a.specificity.length, b.specificity.length); i++) {
    const diff = (b.specificity[i] ?? -1) - (a.specificity[i] ?? -1);
    if (diff !== 0) return diff;
  }
  return 0;
}

/**
 * Matches requests against the route table as API Gateway's HTTP API does: among the route keys of the
 * request's method, the most specific path wins (a literal segment over a parameter). No route key of that
 * method matches, but one of another method does: 405 with those methods. Used by the local gateway and by
 * the `$default` function in AWS (functions/platform/unmatched-route.ts), so both answer alike.
 */
export function createRouteMatcher(
  routes: readonly HttpRoute[],
): (method: string, path: string) => RouteMatch {
  const compiled = routes.map(compile).sort(moreSpecificFirst);
  return (method, path) => {
    const allowed = new Set<string>();
    for (const candidate of compiled) {
      const found = candidate.pattern.exec(path);
      if (!found) continue;
      if (candidate.route.method === method) {
        const values = found.slice(1);
        return {
          kind: 'route',
          route: candidate.route,
          rawPathParameters: Object.fromEntries(candidate.paramNames.map((n, i) => [n, values[i]!])),
        };
      }
      allowed.add(candidate.route.method);
    }
    if (allowed.size === 0) return { kind: 'not-found' };
    return { kind: 'method-not-allowed', allow: METHOD_ORDER.filter((m) => allowed.has(m)) };
  };
}
