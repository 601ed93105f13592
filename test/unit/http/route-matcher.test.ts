import { createRouteMatcher } from '../../../shared/http/route-matcher.js';
import { isJsonMediaType } from '../../../shared/http/media-type.js';
import { httpRoutes, type HttpRoute } from '../../../shared/routes.js';
import type { RouteDef } from '../../../shared/routes/route.js';

const def = (method: RouteDef['method'], path: string, head = false): RouteDef =>
  ({ operationId: `${method}${path}`, method, path, head }) as unknown as RouteDef;
const table = (...defs: RouteDef[]): HttpRoute[] => httpRoutes(defs);

describe('createRouteMatcher', () => {
  const match = createRouteMatcher(
    table(
      def('GET', '/health', true),
      def('GET', '/v1/jobs/{id}'),
      def('POST', '/v1/jobs/{id}'),
      def('DELETE', '/v1/jobs/{id}'),
      def('POST', '/v1/jobs/batch'),
      def('GET', '/v1/review/jobs'),
    ),
  );

  it('finds the route of a method and path, with its raw path parameters', () => {
    const found = match('GET', '/v1/jobs/a%2Fb');
    expect(found).toMatchObject({ kind: 'route', route: { method: 'GET', path: '/v1/jobs/{id}' } });
    expect(found.kind === 'route' && found.rawPathParameters).toEqual({ id: 'a%2Fb' });
  });

  it('resolves a path to its most specific template first: a literal segment wins over a parameter', () => {
    expect(match('POST', '/v1/jobs/batch')).toMatchObject({ route: { path: '/v1/jobs/batch' } });
    // /v1/jobs/batch is its own path, which has no GET: never /v1/jobs/{id} with id "batch".
    expect(match('GET', '/v1/jobs/batch')).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
    expect(match('GET', '/v1/jobs/batches')).toMatchObject({ route: { path: '/v1/jobs/{id}' } });
  });

  it('answers a known path with another method by the methods of that path alone, in a fixed order', () => {
    expect(match('PUT', '/v1/jobs/x')).toEqual({
      kind: 'method-not-allowed',
      allow: ['GET', 'POST', 'DELETE'],
    });
    // Not the methods of /v1/jobs/{id}, which the path also fits.
    expect(match('PATCH', '/v1/jobs/batch')).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
    expect(match('DELETE', '/v1/jobs/batch')).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
    expect(match('POST', '/health')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'HEAD'] });
  });

  it('matches HEAD only where a route declares it', () => {
    expect(match('HEAD', '/health')).toMatchObject({ kind: 'route', route: { method: 'HEAD' } });
    expect(match('HEAD', '/v1/jobs/x')).toEqual({
      kind: 'method-not-allowed',
      allow: ['GET', 'POST', 'DELETE'],
    });
  });

  it('knows the /v1/principal alias of a /v1/review path', () => {
    expect(match('GET', '/v1/principal/jobs')).toMatchObject({ kind: 'route', route: { alias: true } });
    expect(match('POST', '/v1/principal/jobs')).toEqual({ kind: 'method-not-allowed', allow: ['GET'] });
  });

  it('answers not-found for a path of no route (extra or missing segments, trailing slash)', () => {
    for (const path of ['/v1/nothing', '/v1/jobs', '/v1/jobs/x/y', '/health/', '/'])
      expect(match('GET', path)).toEqual({ kind: 'not-found' });
  });

  it('gives a greedy parameter the rest of the path, one segment or more, after any other match', () => {
    const greedy = createRouteMatcher(
      table(
        def('GET', '/v1/log/tile/{path+}'),
        def('GET', '/v1/log/tile/{id}/x'),
        def('GET', '/v1/log/checkpoint'),
      ),
    );
    const found = greedy('GET', '/v1/log/tile/0/x001/234.p/7');
    expect(found).toMatchObject({ kind: 'route', route: { path: '/v1/log/tile/{path+}' } });
    expect(found.kind === 'route' && found.rawPathParameters).toEqual({ path: '0/x001/234.p/7' });
    expect(greedy('GET', '/v1/log/tile/entries')).toMatchObject({
      rawPathParameters: { path: 'entries' },
    });
    // A parameter at the same position wins over the greedy one, as API Gateway's most specific match.
    expect(greedy('GET', '/v1/log/tile/a/x')).toMatchObject({ route: { path: '/v1/log/tile/{id}/x' } });
    expect(greedy('GET', '/v1/log/checkpoint')).toMatchObject({ route: { path: '/v1/log/checkpoint' } });
    for (const path of ['/v1/log/tile', '/v1/log/tile/', '/v1/log/tile/0//1', '/v1/log/tile/0/'])
      expect(greedy('GET', path)).toEqual({ kind: 'not-found' });
    expect(greedy('POST', '/v1/log/tile/0/000')).toEqual({ kind: 'method-not-allowed', allow: ['GET'] });
  });

  it('refuses a greedy parameter that is not the last segment', () => {
    expect(() => createRouteMatcher(table(def('GET', '/v1/{rest+}/x')))).toThrow(/last segment/);
  });

  it('knows every route of the real table, and no HEAD on an authenticated GET', () => {
    const real = createRouteMatcher(httpRoutes());
    for (const route of httpRoutes()) {
      const path = route.path.replace(/\{\w+\}/g, 'x');
      expect(real(route.method, path)).toMatchObject({ kind: 'route', route: { method: route.method } });
    }
    expect(real('HEAD', '/v1/ledger/records')).toEqual({ kind: 'method-not-allowed', allow: ['GET'] });
    expect(real('GET', '/v1/firm/me/webhooks')).toMatchObject({ kind: 'route' });
    expect(real('PUT', '/v1/firm/me/webhooks')).toEqual({
      kind: 'method-not-allowed',
      allow: ['GET', 'POST'],
    });
    // Issue 33: /v1/incidents/stats has GET alone, though /v1/incidents/{id} also has POST.
    for (const method of ['DELETE', 'POST'])
      expect(real(method, '/v1/incidents/stats')).toEqual({ kind: 'method-not-allowed', allow: ['GET'] });
  });
});

describe('isJsonMediaType', () => {
  it('accepts application/json and +json types, with parameters, in any case', () => {
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'Application/JSON;charset=UTF-8',
      'application/merge-patch+json',
      'application/vnd.api+json',
      ' application/problem+json ; q=1',
    ])
      expect([type, isJsonMediaType(type)]).toEqual([type, true]);
  });

  it('refuses everything else, a missing type included', () => {
    for (const type of [
      undefined,
      '',
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
      'application/json-seq',
      'application/+json',
      'json',
      'text/json+xml',
    ])
      expect([type, isJsonMediaType(type)]).toEqual([type, false]);
  });
});
