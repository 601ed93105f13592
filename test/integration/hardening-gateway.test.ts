import { assertDescribed } from '../support/contract.js';
import { api, createFirm, stack, type TestFirm } from './helpers.js';

/*
 * Issue 12 part 8: the local gateway answers every refusal in the error envelope, with API Gateway's limit on
 * the request line and headers (10,240 bytes), and the credential is checked before the body is parsed.
 */

async function raw(path: string, init: RequestInit = {}) {
  const response = await fetch(`${stack.baseUrl}${path}`, init);
  const text = await response.text();
  const body: unknown = JSON.parse(text);
  const method = init.method ?? 'GET';
  await assertDescribed(stack.baseUrl, {
    method,
    path,
    status: response.status,
    headers: response.headers,
    text,
    body,
  });
  return { status: response.status, contentType: response.headers.get('content-type'), body: body as any };
}

describe('request line and header limits (API Gateway: 10,240 bytes)', () => {
  it('answers a 60,000-character path with 414 URI_TOO_LONG in the envelope', async () => {
    const response = await raw(`/v1/${'a'.repeat(60_000)}`);
    expect(response.status).toBe(414);
    expect(response.contentType).toBe('application/json');
    expect(response.body.error).toMatchObject({ code: 'URI_TOO_LONG', requestId: expect.any(String) });
  });

  it('answers a path just over the limit with 414, one well under it normally (404 for no route)', async () => {
    expect((await raw(`/v1/${'a'.repeat(10_300)}`)).status).toBe(414);
    const under = await raw(`/v1/${'a'.repeat(9_000)}`);
    expect([under.status, under.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('answers oversized headers with 431 HEADERS_TOO_LARGE in the envelope', async () => {
    const response = await raw('/health', { headers: { 'x-padding': 'p'.repeat(12_000) } });
    expect(response.status).toBe(431);
    expect(response.body.error).toMatchObject({ code: 'HEADERS_TOO_LARGE', requestId: expect.any(String) });
  });

  it('answers a request past what the HTTP parser takes (100,000-character path) in the envelope too', async () => {
    const response = await raw(`/v1/${'a'.repeat(100_000)}`);
    expect(response.status).toBe(431);
    expect(response.body.error.code).toBe('HEADERS_TOO_LARGE');
  });
});

describe('the credential is checked before the body is parsed', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('BOTH');
  });
  const incident = (options: { key?: string; raw: string }) => api('POST', '/v1/incidents', options);

  it('answers an unauthenticated malformed body 401, an authenticated one 400', async () => {
    const anonymous = await incident({ raw: '{"title":' });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    const wrongKey = await incident({ key: 'gls_live_nope', raw: '{"title":' });
    expect(wrongKey.status).toBe(401);
    const signedIn = await incident({ key: firm.key, raw: '{"title":' });
    expect([signedIn.status, signedIn.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('answers an unauthenticated oversize body 401, an authenticated one 413', async () => {
    const big = JSON.stringify({ title: 'x'.repeat(300_000) });
    const anonymous = await incident({ raw: big });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    const signedIn = await incident({ key: firm.key, raw: big });
    expect([signedIn.status, signedIn.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });
});
