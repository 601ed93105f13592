import { api, createFirm, type TestFirm } from './helpers.js';
import { incidentBody } from '../support/stack-client.js';

describe('API keys', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm();
  });

  it('creates a key that is shown once and works at once', async () => {
    const { status, body } = await api('POST', '/v1/firm/me/api-keys', {
      key: firm.key,
      body: { name: 'ci pipeline' },
    });
    expect(status).toBe(201);
    expect(body).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^gls_[A-Za-z0-9_-]{43}$/),
      name: 'ci pipeline',
      scope: 'full',
      createdAt: expect.any(String),
    });
    expect((await api('GET', '/v1/firm/me', { key: body.key })).body.id).toBe(firm.firmId);

    const list = await api('GET', '/v1/firm/me/api-keys', { key: firm.key });
    expect(list.status).toBe(200);
    const listed = list.body.find((k: { id: string }) => k.id === body.id);
    expect(listed).toEqual({
      id: body.id,
      name: 'ci pipeline',
      keyPrefix: body.key.slice(0, 10),
      scope: 'full',
      createdAt: body.createdAt,
    });
    expect(JSON.stringify(list.body)).not.toContain(body.key);
  });

  it('revokes a key: 204, refused from the next request, gone from the list, 404 the second time', async () => {
    const { body: created } = await api('POST', '/v1/firm/me/api-keys', {
      key: firm.key,
      body: { name: 'temporary' },
    });
    expect((await api('DELETE', `/v1/firm/me/api-keys/${created.id}`, { key: firm.key })).status).toBe(204);
    const refused = await api('GET', '/v1/firm/me', { key: created.key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
    const list = await api('GET', '/v1/firm/me/api-keys', { key: firm.key });
    expect(list.body.map((k: { id: string }) => k.id)).not.toContain(created.id);
    expect((await api('DELETE', `/v1/firm/me/api-keys/${created.id}`, { key: firm.key })).status).toBe(404);
  });

  it('lets a key revoke itself', async () => {
    const { body: created } = await api('POST', '/v1/firm/me/api-keys', {
      key: firm.key,
      body: { name: 'self' },
    });
    expect((await api('DELETE', `/v1/firm/me/api-keys/${created.id}`, { key: created.key })).status).toBe(
      204,
    );
    expect((await api('GET', '/v1/firm/me', { key: created.key })).status).toBe(401);
  });

  it("answers 404 for an unknown key and for another firm's key, which keeps working", async () => {
    const other = await createFirm();
    const { body: theirs } = await api('POST', '/v1/firm/me/api-keys', {
      key: other.key,
      body: { name: 'theirs' },
    });
    const { status, body } = await api('DELETE', `/v1/firm/me/api-keys/${theirs.id}`, { key: firm.key });
    expect(status).toBe(404);
    expect(body.error.code).toBe('NOT_FOUND');
    expect((await api('GET', '/v1/firm/me', { key: theirs.key })).status).toBe(200);
    expect((await api('DELETE', '/v1/firm/me/api-keys/key_unknown', { key: firm.key })).status).toBe(404);
    const list = await api('GET', '/v1/firm/me/api-keys', { key: firm.key });
    expect(list.body.map((k: { id: string }) => k.id)).not.toContain(theirs.id);
  });

  it('issues a read-only auditor key: the ledger records only, 403 everywhere else', async () => {
    const created = await api('POST', '/v1/firm/me/api-keys', {
      key: firm.key,
      body: { name: 'regulator', scope: 'auditor' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'regulator', scope: 'auditor' });
    const auditor = created.body.key as string;
    const list = await api('GET', '/v1/firm/me/api-keys', { key: firm.key });
    expect(list.body.find((k: { id: string }) => k.id === created.body.id)).toMatchObject({
      scope: 'auditor',
    });

    const logged = await api('POST', '/v1/incidents', { key: firm.key, body: incidentBody(1) });
    expect(logged.status).toBe(201);
    const records = await api('GET', '/v1/ledger/records?order=asc', { key: auditor });
    expect(records.status).toBe(200);
    expect(records.body.data.length).toBeGreaterThan(0);
    const one = await api('GET', `/v1/ledger/records/${records.body.data[0].id}`, { key: auditor });
    expect(one.status).toBe(200);

    for (const [method, path, body] of [
      ['GET', '/v1/firm/me', undefined],
      ['GET', '/v1/firm/me/api-keys', undefined],
      ['POST', '/v1/firm/me/api-keys', { name: 'escalate' }],
      ['POST', '/v1/incidents', incidentBody(2)],
      ['GET', '/v1/incidents', undefined],
      ['GET', '/v1/ledger/export', undefined],
      ['GET', `/v1/ledger/records/${records.body.data[0].id}/evidence`, undefined],
      ['POST', '/v1/ledger/integrity/verify', undefined],
      ['DELETE', `/v1/firm/me/api-keys/${created.body.id}`, undefined],
    ] as const) {
      const refused = await api(method, path, { key: auditor, ...(body ? { body } : {}) });
      expect([method, path, refused.status, refused.body.error.code]).toEqual([
        method,
        path,
        403,
        'FORBIDDEN',
      ]);
    }
    // Its refusals wrote nothing: the firm's chain has just the one incident it logged.
    const after = await api('GET', '/v1/ledger/records', { key: firm.key });
    expect(after.body.pagination.total).toBe(records.body.pagination.total);
  });

  it.each([[{ name: 'x', scope: 'admin' }], [{ name: 'x', scope: '' }], [{ name: 'x', scope: null }]])(
    'refuses a key scope that does not exist, %j, with 400',
    async (body) => {
      const response = await api('POST', '/v1/firm/me/api-keys', { key: firm.key, body });
      expect(response.status).toBe(400);
      expect(response.body.error.details[0].path).toBe('body.scope');
    },
  );

  it.each([
    [{}],
    [{ name: '' }],
    [{ name: '   ' }],
    [{ name: 'x'.repeat(101) }],
    [{ name: 42 }],
    [{ name: 'ok', extra: true }],
  ])('refuses %j with 400', async (body) => {
    const response = await api('POST', '/v1/firm/me/api-keys', { key: firm.key, body });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses a missing body with 400', async () => {
    const response = await api('POST', '/v1/firm/me/api-keys', { key: firm.key });
    expect(response.status).toBe(400);
  });
});
