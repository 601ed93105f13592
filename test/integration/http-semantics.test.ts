import { assertDescribed } from '../support/contract.js';
import { api, createFirm, stack, type TestFirm } from './helpers.js';

/*
 * Issue 19, part 5: HTTP semantics on every route. Cache-Control and X-Content-Type-Options on every answer,
 * 405 with Allow for a known path's other methods, HEAD on /health and the public GETs, 415 for a JSON
 * operation's body sent as anything else (nothing written).
 */

const parsedOrText = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** A request with exactly these headers and body (fetch labels a string body text/plain, a byte body not at all). */
async function send(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Uint8Array,
) {
  const response = await fetch(`${stack.baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  const answer = { method, path, status: response.status, headers: response.headers, text };
  await assertDescribed(stack.baseUrl, { ...answer, body: parsedOrText(text) });
  return { ...answer, json: () => JSON.parse(text) };
}

const incident = {
  title: 'Stale risk profile',
  description: 'A report used last year’s profile',
  severity: 'LOW',
  category: 'OPERATIONAL',
};

async function ledgerLength(firm: TestFirm): Promise<number> {
  const page = await api('GET', '/v1/ledger/records?pageSize=1', { key: firm.key });
  expect(page.status).toBe(200);
  return page.body.pagination.total;
}

let firm: TestFirm;
beforeAll(async () => {
  firm = await createFirm('BOTH');
});

describe('Cache-Control and X-Content-Type-Options', () => {
  const noStore = (headers: Headers) => [headers.get('cache-control'), headers.get('x-content-type-options')];

  it('never lets an authenticated answer be stored, secrets and keys included', async () => {
    const me = await api('GET', '/v1/firm/me', { key: firm.key });
    expect(me.status).toBe(200);
    expect(noStore(me.headers)).toEqual(['no-store', 'nosniff']);
    const key = await api('POST', '/v1/firm/me/api-keys', { key: firm.key, body: { name: 'cache check' } });
    expect(key.status).toBe(201);
    expect(noStore(key.headers)).toEqual(['no-store', 'nosniff']);
    const webhooks = await api('GET', '/v1/firm/me/webhooks', { key: firm.key });
    expect(webhooks.status).toBe(200);
    expect(noStore(webhooks.headers)).toEqual(['no-store', 'nosniff']);
  });

  it('puts no-store and nosniff on errors too: 401, 400, 404 of a route and of no route', async () => {
    for (const response of [
      await api('GET', '/v1/firm/me'),
      await api('POST', '/v1/incidents', { key: firm.key, body: { title: '' } }),
      await api('GET', '/v1/incidents/inc_nope', { key: firm.key }),
      await api('GET', '/v1/nothing-here'),
    ]) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(noStore(response.headers)).toEqual(['no-store', 'nosniff']);
    }
  });

  it('lets the public key and the OpenAPI document be cached briefly, never health or verification', async () => {
    for (const path of ['/.well-known/signing-key', '/openapi.json']) {
      const response = await api('GET', path);
      expect([path, response.status, ...noStore(response.headers)]).toEqual([
        path,
        200,
        'public, max-age=300',
        'nosniff',
      ]);
    }
    for (const path of ['/health', '/v1/verify/cert_unknown', '/verify/cert_unknown']) {
      const response = await api('GET', path);
      expect([path, ...noStore(response.headers)]).toEqual([path, 'no-store', 'nosniff']);
    }
  });
});

describe('405 METHOD_NOT_ALLOWED with Allow', () => {
  it.each([
    ['PUT', '/health', 'GET, HEAD'],
    ['DELETE', '/v1/incidents', 'GET, POST'],
    ['PATCH', '/v1/ledger/records/rec_x', 'GET'],
    ['DELETE', '/v1/review/jobs/job_x', 'GET'],
    ['DELETE', '/v1/principal/jobs/job_x', 'GET'],
    ['GET', '/v1/incidents/inc_x/remediations', 'POST'],
    ['PUT', '/v1/firm/me/webhooks', 'GET, POST'],
  ])('answers %s %s in the envelope, allowing %s', async (method, path, allow) => {
    const response = await send(method, path, { 'x-service-key': firm.key });
    expect([response.status, response.headers.get('allow')]).toEqual([405, allow]);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.json()).toEqual({
      error: {
        code: 'METHOD_NOT_ALLOWED',
        message: expect.stringContaining(method),
        requestId: expect.any(String),
      },
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('answers without a credential too (the method is wrong whoever asks), and 404 for an unknown path', async () => {
    expect((await send('PUT', '/v1/firm/me')).status).toBe(405);
    const unknown = await send('PUT', '/v1/firm/you');
    expect([unknown.status, unknown.headers.get('allow'), unknown.json().error.code]).toEqual([
      404,
      null,
      'NOT_FOUND',
    ]);
  });

  it('answers HEAD on an authenticated GET 405 with Allow, without a body', async () => {
    const response = await send('HEAD', '/v1/ledger/records', { 'x-service-key': firm.key });
    expect([response.status, response.headers.get('allow'), response.text]).toEqual([405, 'GET', '']);
  });
});

describe('HEAD on /health and the public GETs', () => {
  const compared = ['content-type', 'cache-control', 'x-content-type-options', 'content-security-policy'];
  const pick = (headers: Headers) => compared.map((name) => [name, headers.get(name)]);

  it.each([
    ['/health', 200],
    ['/.well-known/signing-key', 200],
    ['/openapi.json', 200],
    ['/v1/verify/cert_unknown', 404],
    ['/verify/cert_unknown', 404],
  ])('answers HEAD %s with the status and headers of GET, and no body', async (path, status) => {
    const get = await send('GET', path);
    const head = await send('HEAD', path);
    expect(get.status).toBe(status);
    expect(get.text.length).toBeGreaterThan(0);
    expect([head.status, head.text]).toEqual([status, '']);
    expect(pick(head.headers)).toEqual(pick(get.headers));
    expect(head.headers.get('x-request-id')).toEqual(expect.any(String));
  });
});

describe('415 UNSUPPORTED_MEDIA_TYPE for a JSON operation', () => {
  it('refuses a JSON body sent as text/plain and writes nothing', async () => {
    const before = await ledgerLength(firm);
    const listed = (await api('GET', '/v1/incidents', { key: firm.key })).body.length;
    const response = await send(
      'POST',
      '/v1/incidents',
      { 'x-service-key': firm.key, 'content-type': 'text/plain' },
      JSON.stringify(incident),
    );
    expect(response.status).toBe(415);
    expect(response.json().error).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      requestId: expect.any(String),
    });
    expect([response.headers.get('cache-control'), response.headers.get('x-content-type-options')]).toEqual([
      'no-store',
      'nosniff',
    ]);
    expect(await ledgerLength(firm)).toBe(before);
    expect((await api('GET', '/v1/incidents', { key: firm.key })).body).toHaveLength(listed);
  });

  it('refuses a body without a Content-Type, a form and fetch’s default string label', async () => {
    const before = await ledgerLength(firm);
    const body = JSON.stringify(incident);
    const key = { 'x-service-key': firm.key };
    expect((await send('POST', '/v1/incidents', key, new TextEncoder().encode(body))).status).toBe(415);
    expect((await send('POST', '/v1/incidents', key, body)).status).toBe(415);
    const form = { ...key, 'content-type': 'application/x-www-form-urlencoded' };
    expect((await send('POST', '/v1/incidents', form, body)).status).toBe(415);
    expect(await ledgerLength(firm)).toBe(before);
  });

  it('checks the credential first: an unauthenticated text/plain body is 401', async () => {
    const response = await send(
      'POST',
      '/v1/incidents',
      { 'content-type': 'text/plain' },
      JSON.stringify(incident),
    );
    expect([response.status, response.json().error.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('accepts application/json with a charset and +json types', async () => {
    const before = await ledgerLength(firm);
    const created = await send(
      'POST',
      '/v1/incidents',
      { 'x-service-key': firm.key, 'content-type': 'application/json; charset=utf-8' },
      JSON.stringify(incident),
    );
    expect(created.status).toBe(201);
    expect(await ledgerLength(firm)).toBe(before + 1);
    const patched = await send(
      'PATCH',
      '/v1/firm/me/settings',
      { 'x-service-key': firm.key, 'content-type': 'application/merge-patch+json' },
      JSON.stringify({ biasWarningThreshold: 0.2 }),
    );
    expect(patched.status).toBe(200);
  });

  it('lets an operation without a request body run with no body, no Content-Type, or any body', async () => {
    const bare = await send('POST', '/v1/ledger/integrity/verify', { 'x-service-key': firm.key });
    expect(bare.status).toBe(200);
    const labelled = await send(
      'POST',
      '/v1/ledger/integrity/verify',
      { 'x-service-key': firm.key },
      'ignored',
    );
    expect(labelled.status).toBe(200);
  });
});
