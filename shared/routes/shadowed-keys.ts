import type { HttpRoute } from '../routes.js';

/** A route key API Gateway must send to the `$default` function instead of the route it would pick. */
export interface ShadowedRouteKey {
  method: string;
  path: string;
}

const isParameter = (segment: string) => /^\{\w+\+?\}$/.test(segment);
const isGreedy = (segment: string) => /^\{\w+\+\}$/.test(segment);

/** Whether every request path `inner` matches is matched by `outer` too (both path templates). */
function covers(outer: string[], inner: string[]): boolean {
  for (let i = 0; i < outer.length; i++) {
    const segment = outer[i]!;
    if (isGreedy(segment)) return inner.length > i;
    const other = inner[i];
    if (other === undefined) return false;
    if (isParameter(segment)) continue;
    if (isParameter(other) || other !== segment) return false;
  }
  return outer.length === inner.length;
}

/**
 * The (method, path) pairs where API Gateway and our route matcher (route-matcher.ts) part ways. API Gateway
 * picks among the route keys of the request's method only, so a method a path lacks reaches a more general
 * path's route of that method: POST /v1/incidents/stats would update the incident "stats" through POST
 * /v1/incidents/{id}. Our matcher resolves the path first and answers 405 with the path's own methods. A route
 * key for each such pair, sent to `$default` (lib/api.ts), makes API Gateway answer as the matcher does.
 */
export function shadowedRouteKeys(routes: readonly HttpRoute[]): ShadowedRouteKey[] {
  const methodsByPath = new Map<string, Set<string>>();
  for (const { method, path } of routes)
    methodsByPath.set(path, (methodsByPath.get(path) ?? new Set()).add(method));
  const shadowed: ShadowedRouteKey[] = [];
  for (const [path, methods] of methodsByPath) {
    const segments = path.split('/').filter(Boolean);
    const reached = new Set<string>();
    for (const route of routes) {
      if (route.path === path || methods.has(route.method) || reached.has(route.method)) continue;
      if (covers(route.path.split('/').filter(Boolean), segments)) reached.add(route.method);
    }
    for (const method of reached) shadowed.push({ method, path });
  }
  return shadowed;
}
