import { api, createFirm, type ApiResponse, type TestFirm } from './helpers.js';

/*
 * Issue 12 part 5: bounded work per request. Every report period is at most 366 days with each bound between
 * 1970-01-01 and 9999-12-31 (400 with details beyond), and no response body exceeds what Lambda can return
 * (422 in the envelope instead of the platform's opaque failure).
 */

interface ErrorEnvelope {
  error: { code: string; requestId: string; details?: { path: string; message: string }[] };
}

function expectRefused(response: ApiResponse<ErrorEnvelope>, detailPath: string): void {
  expect(response.status).toBe(400);
  expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', requestId: expect.any(String) });
  expect(response.body.error.details?.map((d) => d.path)).toContain(detailPath);
}

const PERIOD_ROUTES = ['/v1/models/acme/1/timeline', '/v1/bias', '/v1/reports/consumer-duty'];

describe('report periods are bounded', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('BOTH');
  });

  it.each(PERIOD_ROUTES)('%s refuses a period longer than 366 days', async (path) => {
    const huge = await api('GET', `${path}?from=0001-01-01&to=9999-12-31`, { key: firm.key });
    expectRefused(huge, 'query.from');
    const twoYears = await api('GET', `${path}?from=2024-01-01&to=2025-12-31`, { key: firm.key });
    expectRefused(twoYears, 'query.to');
    expect(twoYears.body.error.details?.[0]?.message).toMatch(/366 days/);
    // A bound alone can make the period too long against the other's default (now).
    expectRefused(await api('GET', `${path}?from=2001-01-01`, { key: firm.key }), 'query.to');
  });

  it.each(PERIOD_ROUTES)('%s accepts a whole leap year (366 days)', async (path) => {
    const response = await api('GET', `${path}?from=2024-01-01&to=2024-12-31`, { key: firm.key });
    expect(response.status).toBe(200);
  });

  it.each(PERIOD_ROUTES)('%s refuses bounds outside 1970..9999 and extreme dates with 400', async (path) => {
    expectRefused(
      await api('GET', `${path}?from=-271821-04-20&to=1970-01-02`, { key: firm.key }),
      'query.from',
    );
    expectRefused(await api('GET', `${path}?from=%2B275760-09-13`, { key: firm.key }), 'query.from');
    expectRefused(await api('GET', `${path}?from=1969-12-31&to=1970-01-02`, { key: firm.key }), 'query.from');
    expectRefused(
      await api('GET', `${path}?from=9999-12-31&to=%2B010000-01-01`, { key: firm.key }),
      'query.to',
    );
  });

  it('says the bounds in the OpenAPI description', async () => {
    const { body } = await api('GET', '/openapi.json');
    for (const [path, operation] of [
      ['/v1/models/{provider}/{version}/timeline', 'get'],
      ['/v1/bias', 'get'],
      ['/v1/reports/consumer-duty', 'get'],
    ] as const) {
      const described = body.paths[path][operation];
      expect(described.description).toMatch(/366 days/);
      const from = described.parameters.find((p: { name: string }) => p.name === 'from');
      expect(from.description ?? from.schema?.description).toMatch(/1970-01-01 and 9999-12-31/);
    }
  });
});

describe('response size', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('BOTH');
  });

  it('answers 422 in the envelope instead of a body Lambda cannot return (over 5 MiB)', async () => {
    const filler = 'x'.repeat(90_000);
    const post = () =>
      api('POST', '/v1/reports', {
        key: firm.key,
        body: {
          type: 'CONSUMER_DUTY',
          periodFrom: '2026-01-01',
          periodTo: '2026-01-31',
          metadata: { filler },
        },
      });
    for (let i = 0; i < 6; i++) {
      const batch = await Promise.all(Array.from({ length: 10 }, post));
      expect(batch.map((r) => r.status)).toEqual(Array(10).fill(201));
    }
    const list = await api<ErrorEnvelope>('GET', '/v1/reports', { key: firm.key });
    expect(list.status).toBe(422);
    expect(list.body.error).toMatchObject({
      code: 'UNPROCESSABLE',
      message: expect.stringMatching(/narrow/),
    });
    // A narrower request still answers.
    expect((await api('GET', '/v1/reports?type=BIAS', { key: firm.key })).status).toBe(200);
  });
});
