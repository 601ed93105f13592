import { api } from './helpers.js';

/*
 * Issue 33, part 5: `Allow` names exactly the documented methods of the path asked for, on every path. The test
 * walks the description the stack serves (/openapi.json): each path, its parameters filled with sample values,
 * is asked every method it does not document, and must answer 405 METHOD_NOT_ALLOWED whose `Allow` lists the
 * path's documented methods, no more, in the server's fixed order; every documented method must not be 405.
 * No credential is sent: the method is wrong whoever asks, and a documented method stops at 401 (or is a public
 * read), so the walk writes nothing.
 *
 * HEAD and OPTIONS are methods like the others: HEAD is documented (and served) on /health and the public GETs
 * only, so on any other path it is 405 (without a body); OPTIONS is documented nowhere (no CORS), so it is 405
 * everywhere.
 */

/** Every method the walk asks; fetch refuses CONNECT and TRACE, which no route has either. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** The order in which the server lists methods in `Allow` (shared/http/route-matcher.ts). */
const ALLOW_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface Description {
  paths: Record<string, Record<string, unknown>>;
}

let paths: [template: string, documented: string[]][];
beforeAll(async () => {
  const description = await api<Description>('GET', '/openapi.json');
  expect(description.status).toBe(200);
  paths = Object.entries(description.body.paths).map(([template, item]) => [
    template,
    ALLOW_ORDER.filter((method) => method.toLowerCase() in item),
  ]);
});

/** A concrete path of a template: each parameter gets a sample value named after it. */
const concrete = (template: string) => template.replace(/\{(\w+)\}/g, (_, name: string) => `sample-${name}`);

describe('405 with Allow on every path of the description', () => {
  it('walks a description that has the paths the issue names', () => {
    const templates = paths.map(([template]) => template);
    expect(templates.length).toBeGreaterThan(50);
    expect(templates).toEqual(expect.arrayContaining(['/v1/incidents/stats', '/v1/incidents/{id}']));
  });

  it('answers every undocumented method 405 with exactly the documented methods in Allow', async () => {
    const mismatches: string[] = [];
    let asked = 0;
    for (const [template, documented] of paths) {
      expect([template, documented.length > 0]).toEqual([template, true]);
      const path = concrete(template);
      for (const method of METHODS.filter((m) => !documented.includes(m))) {
        asked += 1;
        const response = await api(method, path);
        const allow = response.headers.get('allow');
        if (response.status !== 405 || allow !== documented.join(', '))
          mismatches.push(`${method} ${path}: ${response.status}, Allow ${allow} (documented ${documented})`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(asked).toBeGreaterThan(paths.length * 4);
  });

  it('never answers a documented method 405', async () => {
    const refused: string[] = [];
    for (const [template, documented] of paths) {
      const path = concrete(template);
      for (const method of documented) {
        const response = await api(method, path);
        if (response.status === 405 || response.headers.get('allow') !== null)
          refused.push(`${method} ${path}: ${response.status}`);
      }
    }
    expect(refused).toEqual([]);
  });

  it('answers a literal path by its own methods, not those of the parameter path beside it', async () => {
    // /v1/incidents/{id} has GET and POST; /v1/incidents/stats has GET alone.
    for (const method of ['DELETE', 'POST', 'PATCH']) {
      const response = await api(method, '/v1/incidents/stats');
      expect([method, response.status, response.headers.get('allow')]).toEqual([method, 405, 'GET']);
    }
    const beside = await api('DELETE', '/v1/incidents/inc_sample');
    expect([beside.status, beside.headers.get('allow')]).toEqual([405, 'GET, POST']);
  });
});
