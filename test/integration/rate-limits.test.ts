import { api, createFirm } from './helpers.js';
import { startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import { call, chainOf, incidentBody, onboardFirm, type StackResponse } from '../support/stack-client.js';

/**
 * Fair per-firm limits (issue 19, part 6): ledger-writing requests are limited per firm, one token bucket shared
 * by all of the firm's credentials and all instances. One token per 1000 s (FIRM_WRITE_RATE_PER_S=0.001), so no
 * token comes back while the tests run: each firm has exactly FIRM_WRITE_BURST=3 writes, whatever the timing.
 */
const BURST = 3;

/** The parameters of a one-item structured-field list: `"name";a=1;b=2` → {a: 1, b: 2}. */
function sfParams(value: string | null, name = 'firm-writes'): Record<string, number> {
  expect(value).not.toBeNull();
  const [item, ...params] = value!.split(';');
  expect(item).toBe(`"${name}"`);
  return Object.fromEntries(params.map((p) => [p.split('=')[0], Number(p.split('=')[1])]));
}

function expectRateLimitHeaders(response: StackResponse, remaining: number) {
  expect(sfParams(response.headers.get('ratelimit-policy'))).toEqual({ q: BURST, w: 3000 });
  const limit = sfParams(response.headers.get('ratelimit'));
  expect(limit.r).toBe(remaining);
  expect(Number.isInteger(limit.t)).toBe(true);
  expect(limit.t).toBeGreaterThanOrEqual(1);
  expect(limit.t).toBeLessThanOrEqual(1000);
  return limit;
}

function expectRefused(response: StackResponse) {
  expect(response.status).toBe(429);
  expect(response.body.error).toMatchObject({ code: 'RATE_LIMITED', requestId: expect.any(String) });
  const retryAfter = response.headers.get('retry-after');
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  const limit = expectRateLimitHeaders(response, 0);
  // The effective window ends when the next token comes, the moment Retry-After names.
  expect(limit.t).toBe(Number(retryAfter));
}

describe('per-firm write limits (FIRM_WRITE_RATE_PER_S=0.001, FIRM_WRITE_BURST=3, LOCAL_INSTANCES=4)', () => {
  let stack: RunningStack;

  beforeAll(async () => {
    stack = await startStack({
      instances: 4,
      // Slow Signs keep concurrent appends on their instances long enough to spread over several.
      env: { FIRM_WRITE_RATE_PER_S: '0.001', FIRM_WRITE_BURST: String(BURST), SIGNER_LATENCY_MS: '200' },
    });
  });

  afterAll(async () => {
    await stopStack(stack, { removeData: true });
  });

  it('limits one firm across its API keys; over the limit: 429 RATE_LIMITED with Retry-After, nothing written', async () => {
    const firm = await onboardFirm(stack);
    const second = await call(stack, 'POST', '/v1/firm/me/api-keys', {
      key: firm.key,
      body: { name: 'Second integration' },
    });
    expect(second.status).toBe(201);
    // A request that does not write the ledger is not limited and carries no RateLimit headers.
    expect(second.headers.get('ratelimit')).toBeNull();

    const first = await call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(1) });
    expect(first.status).toBe(201);
    expectRateLimitHeaders(first, 2);
    const other = await call(stack, 'POST', '/v1/incidents', { key: second.body.key, body: incidentBody(2) });
    expect(other.status).toBe(201);
    expectRateLimitHeaders(other, 1);
    // Another ledger-writing route draws on the same bucket.
    const settings = await call(stack, 'PATCH', '/v1/firm/me/settings', {
      key: firm.key,
      body: { biasWarningThreshold: 0.2 },
    });
    expect(settings.status).toBe(200);
    expectRateLimitHeaders(settings, 0);

    const recordsBefore = (await chainOf(stack, firm.key)).length;
    const incidentsBefore = (await call(stack, 'GET', '/v1/incidents', { key: firm.key })).body;
    for (const key of [firm.key, second.body.key]) {
      expectRefused(await call(stack, 'POST', '/v1/incidents', { key, body: incidentBody(3) }));
    }
    // Refused again, more times than there are instances: each instance that has refused a key holds that
    // refusal until its Retry-After and answers from memory, the same 429 as the bucket's own.
    for (let i = 0; i < 8; i++)
      expectRefused(await call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(4 + i) }));
    // Refused before the body is read: an invalid body is refused the same way, not 400.
    expectRefused(await call(stack, 'POST', '/v1/incidents', { key: firm.key, body: { nonsense: true } }));
    expectRefused(
      await call(stack, 'PATCH', '/v1/firm/me/settings', {
        key: firm.key,
        body: { biasWarningThreshold: 0.15 },
      }),
    );

    expect(await chainOf(stack, firm.key)).toHaveLength(recordsBefore);
    expect((await call(stack, 'GET', '/v1/incidents', { key: firm.key })).body).toEqual(incidentsBefore);
    const current = await call(stack, 'GET', '/v1/firm/me/settings', { key: firm.key });
    expect(current.body.biasWarningThreshold).toBe(0.2);
    // Reads go on, unlimited.
    expect(current.status).toBe(200);
    expect(current.headers.get('ratelimit')).toBeNull();
  });

  it('leaves another firm unaffected by one firm at its limit', async () => {
    const busy = await onboardFirm(stack);
    const calm = await onboardFirm(stack);
    for (let n = 0; n < BURST; n++)
      expect(
        (await call(stack, 'POST', '/v1/incidents', { key: busy.key, body: incidentBody(n) })).status,
      ).toBe(201);
    expectRefused(await call(stack, 'POST', '/v1/incidents', { key: busy.key, body: incidentBody(9) }));

    const response = await call(stack, 'POST', '/v1/incidents', { key: calm.key, body: incidentBody(1) });
    expect(response.status).toBe(201);
    expectRateLimitHeaders(response, BURST - 1);
  });

  it('shares one bucket across instances: concurrent writes get exactly the burst, the rest 429', async () => {
    const firm = await onboardFirm(stack);
    const recordsBefore = (await chainOf(stack, firm.key)).length;
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(n) }),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(BURST).fill(201), ...Array(8 - BURST).fill(429)]);
    for (const refused of responses.filter((r) => r.status === 429)) expectRefused(refused);
    const remaining = responses
      .filter((r) => r.status === 201)
      .map((r) => sfParams(r.headers.get('ratelimit')).r);
    expect(remaining.sort()).toEqual([0, 1, 2]);
    // Served by more than one instance: a bucket per instance would have let each of them take three.
    const served = new Set(responses.map((r) => r.headers.get('x-local-instance')));
    expect(served.size).toBeGreaterThan(1);
    expect(await chainOf(stack, firm.key)).toHaveLength(recordsBefore + BURST);
  });
});

describe('without FIRM_WRITE_RATE_PER_S (the shared test stack)', () => {
  it('does not limit: no 429 and no RateLimit headers', async () => {
    const firm = await createFirm();
    const responses = await Promise.all(
      Array.from({ length: 5 }, (_, n) =>
        api('POST', '/v1/incidents', { key: firm.key, body: incidentBody(n) }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(5).fill(201));
    for (const response of responses) {
      expect(response.headers.get('ratelimit')).toBeNull();
      expect(response.headers.get('ratelimit-policy')).toBeNull();
    }
  });
});
