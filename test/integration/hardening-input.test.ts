import { api, createFirm, type ApiResponse, type TestFirm } from './helpers.js';

/*
 * Issue 12 part 2: input DynamoDB or the ledger's RFC 8785 form cannot hold is a 400 in the error envelope,
 * with details, never a 500 (docs/architecture.md §4 "Storable input"). Bodies are sent as raw JSON text, so
 * the numbers and escapes reach the service exactly as written.
 */

interface ErrorEnvelope {
  error: { code: string; requestId: string; details: { path: string; message: string }[] };
}

function expectRefused(response: ApiResponse<ErrorEnvelope>, detailPath?: string | RegExp): void {
  expect(response.status).toBe(400);
  expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', requestId: expect.any(String) });
  const details = response.body.error.details;
  expect(details.length).toBeGreaterThan(0);
  for (const detail of details)
    expect(detail).toEqual({ path: expect.any(String), message: expect.any(String) });
  if (detailPath !== undefined)
    expect(details.map((d) => d.path)).toContainEqual(
      typeof detailPath === 'string' ? detailPath : expect.stringMatching(detailPath),
    );
}

const LONE = '"T\\ud800"';
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('storable JSON: free-form fields', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('BOTH');
  });

  const job = (factFindSummary: string, extra = '') =>
    api('POST', '/v1/review/jobs', {
      key: firm.key,
      raw: `{"documentKey":"uploads/x/none.pdf","documentType":"SUITABILITY_REPORT","clientReference":"CLI-1","documentReference":"DOC-1","factFindSummary":${factFindSummary}${extra}}`,
    });
  const incident = (metadata: string, title = '"Model drift"') =>
    api('POST', '/v1/incidents', {
      key: firm.key,
      raw: `{"title":${title},"description":"d","severity":"HIGH","category":"AI_MODEL","metadata":${metadata}}`,
    });
  const report = (metadata: string) =>
    api('POST', '/v1/reports', {
      key: firm.key,
      raw: `{"type":"CONSUMER_DUTY","periodFrom":"2026-01-01","periodTo":"2026-01-31","metadata":${metadata}}`,
    });

  it.each([
    ['1e21', 'an integer beyond 2^53 (written 1e+21 by RFC 8785)'],
    ['9007199254740993', 'an integer JavaScript cannot hold exactly'],
    ['1e309', 'a number beyond the double range'],
    ['-1e309', 'a negative number beyond the double range'],
    ['1e-200', 'a fraction below DynamoDB’s 1e-130'],
  ])('refuses %s (%s) in factFindSummary, incident and report metadata', async (number) => {
    expectRefused(await job(`{"n":${number}}`), 'body.factFindSummary.n');
    expectRefused(await incident(`{"n":[1,${number}]}`), 'body.metadata.n.1');
    expectRefused(await report(`{"n":${number}}`), 'body.metadata.n');
  });

  it('refuses an empty object key, also inside aiContext', async () => {
    expectRefused(await job('{"":1}'), 'body.factFindSummary');
    expectRefused(await job('{"a":1}', ',"aiContext":{"inputs":{"":1}}'), 'body.aiContext.inputs');
    expectRefused(await incident('{"x":{"":1}}'), 'body.metadata.x');
  });

  it('refuses nesting past the limit, and 10,000 levels without overflowing', async () => {
    expectRefused(await job(nested(33)));
    expectRefused(await incident(nested(17)), /^body\.metadata(\.a)+$/);
    const deep = await job(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    expectRefused(deep, /^body\.factFindSummary(\.0)+$/);
    const deepObject = await report(nested(10_000));
    expectRefused(deepObject);
  });

  it('refuses lone surrogates in values and keys of free-form fields', async () => {
    expectRefused(await job(`{"note":${LONE}}`), 'body.factFindSummary.note');
    expectRefused(await job(`{${LONE}:1}`), 'body.factFindSummary');
    expectRefused(
      await job('{"a":1}', `,"clientSegments":{"ageBand":${LONE}}`),
      'body.clientSegments.ageBand',
    );
  });

  it('still accepts what can be stored: nesting at the limit, safe integers, small fractions', async () => {
    const created = await incident(`{"depth":${nested(14)},"max":9007199254740991,"tiny":1e-130,"neg":-0.5}`);
    expect(created.status).toBe(201);
    expect(created.body.metadata).toMatchObject({ max: 9007199254740991, tiny: 1e-130, neg: -0.5 });
  });
});

describe('storable JSON: free strings', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('BOTH');
  });

  it('refuses a lone surrogate in a job’s clientReference and documentReference', async () => {
    for (const field of ['clientReference', 'documentReference']) {
      const body: Record<string, string> = {
        documentKey: '"uploads/x/none.pdf"',
        documentType: '"SUITABILITY_REPORT"',
        clientReference: '"CLI-1"',
        documentReference: '"DOC-1"',
        factFindSummary: '{}',
      };
      body[field] = LONE;
      const raw = `{${Object.entries(body)
        .map(([k, v]) => `"${k}":${v}`)
        .join(',')}}`;
      expectRefused(await api('POST', '/v1/review/jobs', { key: firm.key, raw }), `body.${field}`);
    }
  });

  it('refuses a lone surrogate in an incident title', async () => {
    const response = await api('POST', '/v1/incidents', {
      key: firm.key,
      raw: `{"title":${LONE},"description":"d","severity":"HIGH","category":"AI_MODEL"}`,
    });
    expectRefused(response, 'body.title');
  });

  it('refuses an API key named with a lone surrogate, and ledger writes keep working', async () => {
    const response = await api('POST', '/v1/firm/me/api-keys', { key: firm.key, raw: `{"name":${LONE}}` });
    expectRefused(response, 'body.name');
    const keys = await api('GET', '/v1/firm/me/api-keys', { key: firm.key });
    expect(keys.body.map((k: { name: string }) => k.name)).not.toContain('T\ud800');
    const write = await api('POST', '/v1/incidents', {
      key: firm.key,
      body: { title: 'After', description: 'd', severity: 'LOW', category: 'AI_MODEL' },
    });
    expect(write.status).toBe(201);
  });

  it('refuses a user named with a lone surrogate', async () => {
    const response = await api('POST', '/v1/firm/me/users', {
      key: firm.key,
      raw: `{"name":${LONE},"email":"lone-${Date.now()}@firm.test"}`,
    });
    expectRefused(response, 'body.name');
  });
});

describe('storable JSON: bounded settings', () => {
  it('PATCH /v1/firm/me/settings refuses 1e-200 inside the declared 0..1 range, and accepts 0', async () => {
    const firm = await createFirm('BOTH');
    for (const raw of ['{"biasWarningThreshold":1e-200}', '{"biasWarningThreshold":1e309}'])
      expectRefused(
        await api('PATCH', '/v1/firm/me/settings', { key: firm.key, raw }),
        'body.biasWarningThreshold',
      );
    const settings = await api('GET', '/v1/firm/me/settings', { key: firm.key });
    expect(settings.body.biasWarningThreshold).toBe(0.1);
    const zero = await api('PATCH', '/v1/firm/me/settings', {
      key: firm.key,
      raw: '{"biasWarningThreshold":0}',
    });
    expect(zero.status).toBe(200);
  });
});
