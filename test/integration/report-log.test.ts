import { api, createFirm, seedUser, tokenFor, type TestFirm } from './helpers.js';

const post = (cred: { key?: string; token?: string }, body: unknown) =>
  api('POST', '/v1/reports', { ...cred, body });

describe('reports log', () => {
  let firm: TestFirm;
  /** A firm that only ever receives invalid requests: its log must stay empty. */
  let empty: TestFirm;
  beforeAll(async () => {
    [firm, empty] = await Promise.all([createFirm('BOTH'), createFirm('LEDGER')]);
  });

  it('normalises date-only periods to whole UTC days and records the signed-in user', async () => {
    const user = await seedUser(firm.firmId, 'REVIEWER', `rep-${firm.firmId}@firm.test`);
    const token = await tokenFor(firm.firmId, user.email);
    const { status, body } = await post(
      { token },
      {
        type: 'CONSUMER_DUTY',
        periodFrom: '2026-01-01',
        periodTo: '2026-03-31',
        metadata: { format: 'pdf' },
      },
    );
    expect(status).toBe(201);
    expect(body).toEqual({
      id: expect.stringMatching(/^rpt_[0-9A-HJKMNP-TV-Z]{26}$/),
      firmId: firm.firmId,
      type: 'CONSUMER_DUTY',
      periodFrom: '2026-01-01T00:00:00.000Z',
      periodTo: '2026-03-31T23:59:59.999Z',
      generatedAt: body.generatedAt,
      generatedByUserId: user.id,
      metadata: { format: 'pdf' },
      generatedByUser: { id: user.id, type: 'USER', name: user.name, email: user.email, role: 'REVIEWER' },
    });
    expect(Math.abs(Date.parse(body.generatedAt) - Date.now())).toBeLessThan(10 * 60_000);
  });

  it('converts date-times with offsets to UTC; an API key is recorded as such', async () => {
    const { status, body } = await post(
      { key: firm.key },
      { type: 'BIAS', periodFrom: '2026-02-01T09:30:00+01:00', periodTo: '2026-02-28T18:00:00.5-05:00' },
    );
    expect(status).toBe(201);
    expect(body).toMatchObject({
      periodFrom: '2026-02-01T08:30:00.000Z',
      periodTo: '2026-02-28T23:00:00.500Z',
      generatedByUserId: null,
      generatedByUser: { type: 'API_KEY', name: 'default', email: null, role: null },
      metadata: {},
    });
  });

  it('a single day is from its first to its last millisecond', async () => {
    const { body } = await post(
      { key: firm.key },
      { type: 'VULNERABILITY', periodFrom: '2026-02-28', periodTo: '2026-02-28' },
    );
    expect([body.periodFrom, body.periodTo]).toEqual([
      '2026-02-28T00:00:00.000Z',
      '2026-02-28T23:59:59.999Z',
    ]);
  });

  it.each([
    ['no type', { periodFrom: '2026-01-01', periodTo: '2026-01-02' }, 'body.type'],
    ['an unknown type', { type: 'WEATHER', periodFrom: '2026-01-01', periodTo: '2026-01-02' }, 'body.type'],
    ['no periodFrom', { type: 'BIAS', periodTo: '2026-01-02' }, 'body.periodFrom'],
    [
      'an impossible date',
      { type: 'BIAS', periodFrom: '2026-02-30', periodTo: '2026-03-02' },
      'body.periodFrom',
    ],
    ['a non-date', { type: 'BIAS', periodFrom: 'last month', periodTo: '2026-03-02' }, 'body.periodFrom'],
    [
      'periodTo before periodFrom',
      { type: 'BIAS', periodFrom: '2026-03-02', periodTo: '2026-03-01' },
      'body.periodTo',
    ],
    [
      'a client-set generatedAt',
      { type: 'BIAS', periodFrom: '2026-03-01', periodTo: '2026-03-02', generatedAt: '2020-01-01' },
      'body',
    ],
    [
      'metadata that is not an object',
      { type: 'BIAS', periodFrom: '2026-03-01', periodTo: '2026-03-02', metadata: [1] },
      'body.metadata',
    ],
  ])('400 for %s; nothing logged', async (_name, body, path) => {
    const response = await post({ key: empty.key }, body);
    expect(response.status).toBe(400);
    expect(response.body.error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
    expect((await api('GET', '/v1/reports', { key: empty.key })).body).toEqual([]);
  });

  it("lists the firm's entries newest first, filtered by type; never another firm's", async () => {
    const mine = await createFirm('LEDGER');
    const other = await createFirm('LEDGER');
    const a = (
      await post({ key: mine.key }, { type: 'INCIDENTS', periodFrom: '2026-01-01', periodTo: '2026-01-31' })
    ).body;
    const b = (
      await post({ key: mine.key }, { type: 'BIAS', periodFrom: '2026-01-01', periodTo: '2026-01-31' })
    ).body;
    const c = (
      await post({ key: mine.key }, { type: 'INCIDENTS', periodFrom: '2026-02-01', periodTo: '2026-02-28' })
    ).body;
    await post({ key: other.key }, { type: 'INCIDENTS', periodFrom: '2026-01-01', periodTo: '2026-01-31' });

    const all = await api('GET', '/v1/reports', { key: mine.key });
    expect(all.status).toBe(200);
    expect(all.body).toEqual([c, b, a]);
    const incidents = await api('GET', '/v1/reports?type=INCIDENTS', { key: mine.key });
    expect(incidents.body).toEqual([c, a]);
    expect((await api('GET', '/v1/reports?type=MODEL_DRIFT', { key: mine.key })).body).toEqual([]);
    const bad = await api('GET', '/v1/reports?type=nope', { key: mine.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('query.type');
    expect((await api('GET', '/v1/reports', { key: other.key })).body).toHaveLength(1);
  });

  it('401 without a credential', async () => {
    expect((await api('GET', '/v1/reports')).status).toBe(401);
    expect(
      (
        await api('POST', '/v1/reports', {
          body: { type: 'BIAS', periodFrom: '2026-01-01', periodTo: '2026-01-02' },
        })
      ).status,
    ).toBe(401);
  });
});
