import { shadowedRouteKeys } from '../../../shared/routes/shadowed-keys.js';
import { httpRoutes, type HttpRoute } from '../../../shared/routes.js';

const routes = (...keys: string[]) =>
  keys.map((key) => {
    const [method, path] = key.split(' ') as [HttpRoute['method'], string];
    return { method, path } as HttpRoute;
  });

describe('shadowedRouteKeys', () => {
  it('finds a method a literal path lacks that a parameter path beside it has', () => {
    expect(
      shadowedRouteKeys(
        routes('GET /v1/incidents/stats', 'GET /v1/incidents/{id}', 'POST /v1/incidents/{id}'),
      ),
    ).toEqual([{ method: 'POST', path: '/v1/incidents/stats' }]);
  });

  it('ignores methods the path has, paths of another length and literal paths that differ', () => {
    expect(
      shadowedRouteKeys(routes('GET /a/b', 'POST /a/b', 'POST /a/{id}', 'DELETE /a/{id}/c', 'PUT /a/x/y')),
    ).toEqual([]);
  });

  it('treats a parameter of the inner path as covered only by a parameter', () => {
    expect(shadowedRouteKeys(routes('GET /a/{id}/x', 'POST /a/{other}/{sub}', 'PUT /a/b/x'))).toEqual([
      { method: 'POST', path: '/a/{id}/x' },
      { method: 'GET', path: '/a/b/x' },
      { method: 'POST', path: '/a/b/x' },
    ]);
  });

  it('lets a greedy parameter cover every deeper path', () => {
    expect(shadowedRouteKeys(routes('GET /t/{rest+}', 'POST /t/x/y', 'POST /t'))).toEqual([
      { method: 'GET', path: '/t/x/y' },
    ]);
  });

  it('finds exactly POST /v1/incidents/stats in today’s route table', () => {
    expect(shadowedRouteKeys(httpRoutes())).toEqual([{ method: 'POST', path: '/v1/incidents/stats' }]);
  });
});
