import { DEFAULT_SETTINGS } from '../../shared/domain/firm/settings.js';
import { api, createFirm, tokenFor, type TestFirm } from './helpers.js';

async function settingsRecords(firm: TestFirm) {
  const { body } = await api(
    'GET',
    '/v1/ledger/records?eventType=FIRM_SETTINGS_UPDATED&order=asc&pageSize=100',
    { key: firm.key },
  );
  return body.data as any[];
}

describe('firm', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('LEDGER');
  });

  it('GET /v1/firm/me returns the firm with effective settings', async () => {
    const { status, body } = await api('GET', '/v1/firm/me', { key: firm.key });
    expect(status).toBe(200);
    expect(body).toEqual({
      id: firm.firmId,
      name: expect.stringMatching(/^Firm /),
      frnNumber: '123456',
      plan: 'LEDGER',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      settings: DEFAULT_SETTINGS,
    });
  });

  it('GET /v1/firm/me/settings returns every default', async () => {
    const { status, body } = await api('GET', '/v1/firm/me/settings', { key: firm.key });
    expect(status).toBe(200);
    expect(body).toEqual(DEFAULT_SETTINGS);
  });

  it('GET /v1/firm/me/stats counts records, certificates and jobs', async () => {
    const fresh = await createFirm();
    expect((await api('GET', '/v1/firm/me/stats', { key: fresh.key })).body).toEqual({
      recordCount: 0,
      certificateCount: 0,
      jobCount: 0,
    });
    await api('PATCH', '/v1/firm/me/settings', { key: fresh.key, body: { enforceImpactAssessments: false } });
    expect((await api('GET', '/v1/firm/me/stats', { key: fresh.key })).body).toEqual({
      recordCount: 1,
      certificateCount: 0,
      jobCount: 0,
    });
  });
});

describe('PATCH /v1/firm/me/settings', () => {
  let firm: TestFirm;
  beforeEach(async () => {
    firm = await createFirm();
  });

  it('stores an operational change without a ledger record', async () => {
    const { status, body } = await api('PATCH', '/v1/firm/me/settings', {
      key: firm.key,
      body: { biasAlertThreshold: 0.35 },
    });
    expect(status).toBe(200);
    expect(body.biasAlertThreshold).toBe(0.35);
    expect((await api('GET', '/v1/firm/me/settings', { key: firm.key })).body.biasAlertThreshold).toBe(0.35);
    expect(await settingsRecords(firm)).toEqual([]);
  });

  it('writes FIRM_SETTINGS_UPDATED with the diff and the API key as actor', async () => {
    const { status } = await api('PATCH', '/v1/firm/me/settings', {
      key: firm.key,
      body: { enforceImpactAssessments: false, biasWarningThreshold: 0.12 },
    });
    expect(status).toBe(200);
    const [record, ...rest] = await settingsRecords(firm);
    expect(rest).toEqual([]);
    expect(record.documentHash).toBe('');
    expect(record.documentMetadata).toEqual({
      actorType: 'API_KEY',
      actorId: expect.stringMatching(/^key_/),
      actorName: 'API key: default',
      changes: [
        { field: 'biasWarningThreshold', from: 0.1, to: 0.12 },
        { field: 'enforceImpactAssessments', from: true, to: false },
      ],
    });
    expect(record.actorId).toBe(record.documentMetadata.actorId);
  });

  it('records a signed-in user as actor with actorType USER', async () => {
    const token = await tokenFor(firm.firmId, firm.admin.email);
    expect(
      (await api('PATCH', '/v1/firm/me/settings', { token, body: { enforceImpactAssessments: false } }))
        .status,
    ).toBe(200);
    const [record] = await settingsRecords(firm);
    expect(record.documentMetadata).toEqual({
      actorType: 'USER',
      actorId: firm.admin.id,
      actorName: 'Ann Admin',
      changes: [{ field: 'enforceImpactAssessments', from: true, to: false }],
    });
    expect(record.actorId).toBe(firm.admin.id);
  });

  it('ignores a write equal to the stored value: nothing stored, no record', async () => {
    await api('PATCH', '/v1/firm/me/settings', { key: firm.key, body: { enforceImpactAssessments: false } });
    const again = await api('PATCH', '/v1/firm/me/settings', {
      key: firm.key,
      body: { enforceImpactAssessments: false, biasAlertThreshold: 0.2 },
    });
    expect(again.status).toBe(200);
    expect(await settingsRecords(firm)).toHaveLength(1);
    const empty = await api('PATCH', '/v1/firm/me/settings', { key: firm.key, body: {} });
    expect(empty.status).toBe(200);
    expect(await settingsRecords(firm)).toHaveLength(1);
  });

  it.each([
    [{ biasWarningThreshold: 1.5 }, 'body.biasWarningThreshold'],
    [{ biasWarningThreshold: -0.1 }, 'body.biasWarningThreshold'],
    [{ cdSlaComplianceAlertThreshold: '0.9' }, 'body.cdSlaComplianceAlertThreshold'],
    [{ enforceImpactAssessments: 'yes' }, 'body.enforceImpactAssessments'],
    [{ unknownSetting: 1 }, 'body'],
    [{ biasWarningThreshold: 0.3 }, 'body.biasWarningThreshold'],
    [{ cdSlaComplianceWarningThreshold: 0.85 }, 'body.cdSlaComplianceWarningThreshold'],
    [[1, 2], 'body'],
  ])('refuses %j with 400 naming %s and changes nothing', async (update, path) => {
    const { status, body } = await api('PATCH', '/v1/firm/me/settings', { key: firm.key, body: update });
    expect(status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect((await api('GET', '/v1/firm/me/settings', { key: firm.key })).body).toEqual(DEFAULT_SETTINGS);
    expect(await settingsRecords(firm)).toEqual([]);
  });

  it('refuses malformed JSON with 400', async () => {
    const { status, body } = await api('PATCH', '/v1/firm/me/settings', {
      key: firm.key,
      raw: '{"enforceImpactAssessments": fals',
    });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Request body is not valid JSON' });
  });

  it('refuses a body over 256 KiB with 413', async () => {
    const { status, body } = await api('PATCH', '/v1/firm/me/settings', {
      key: firm.key,
      raw: JSON.stringify({ pad: 'x'.repeat(300_000) }),
    });
    expect(status).toBe(413);
    expect(body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('serialises concurrent toggles: one record per effective change, final state consistent', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api('PATCH', '/v1/firm/me/settings', {
          key: firm.key,
          body: { enforceImpactAssessments: i % 2 === 0 },
        }),
      ),
    );
    for (const r of results) expect([200, 409]).toContain(r.status);
    const records = await settingsRecords(firm);
    // Every record is a real transition from the previous state, and the last one is the stored state.
    let state = true;
    for (const record of records) {
      const [change] = record.documentMetadata.changes;
      expect(change.from).toBe(state);
      state = change.to;
    }
    expect((await api('GET', '/v1/firm/me/settings', { key: firm.key })).body.enforceImpactAssessments).toBe(
      state,
    );
  });
});
