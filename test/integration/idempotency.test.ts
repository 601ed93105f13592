import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { requestFingerprint } from '../../shared/http/idempotency-key.js';
import { sha256Hex } from '../../shared/ledger/hashing.js';
import { appendRecord } from '../../shared/ledger-writer/append.js';
import { IDEMPOTENCY_STATE, runWithClaim } from '../../shared/store/idempotency-context.js';
import { immutableFirmPrefix } from '../../shared/store/immutable-layout.js';
import { keys } from '../../shared/store/keys.js';
import { TTL_ATTRIBUTE } from '../../shared/store/tables.js';
import { api, createFirm, stackDeps, type TestFirm } from './helpers.js';

/** Issue 19, part 3: `Idempotency-Key` on every POST and PATCH, over HTTP against the embedded stack. */

const incident = (n: number) => ({
  title: `Incident ${n}`,
  description: 'A draft named a fund that does not exist',
  severity: 'LOW',
  category: 'AI_MODEL',
});

const withKey = (firm: TestFirm, key: string, extra: Record<string, string> = {}) => ({
  key: firm.key,
  headers: { 'idempotency-key': key, ...extra },
});

const postIncident = (firm: TestFirm, key: string, body: unknown) =>
  api('POST', '/v1/incidents', { ...withKey(firm, key), body });

async function records(firm: TestFirm, eventType: string): Promise<any[]> {
  const page = await api('GET', `/v1/ledger/records?eventType=${eventType}&pageSize=100`, { key: firm.key });
  expect(page.status).toBe(200);
  return page.body.data;
}

const recordCount = async (firm: TestFirm) =>
  (await api('GET', '/v1/firm/me/stats', { key: firm.key })).body.recordCount as number;

async function immutableCopies(firm: TestFirm): Promise<number> {
  let count = 0;
  for await (const _key of stackDeps().objects.list('immutable', immutableFirmPrefix(firm.firmId)))
    count += 1;
  return count;
}

async function keyItem(firm: TestFirm, key: string) {
  const deps = stackDeps();
  const { Item } = await deps.db.send(
    new GetCommand({
      TableName: deps.tables.main,
      Key: keys.idempotencyKey(firm.firmId, sha256Hex(key)),
      ConsistentRead: true,
    }),
  );
  return Item;
}

/** Polls a worker's progress (not observable otherwise) with a generous bound. */
async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`Never happened: ${what}; last ${JSON.stringify(value)}`);
    await new Promise((wait) => setTimeout(wait, 150));
  }
}

describe('Idempotency-Key: replay', () => {
  it('answers a retried ledger write with the first answer and writes no second record, copy or webhook', async () => {
    const firm = await createFirm();
    const hook = await api('POST', '/v1/firm/me/webhooks', {
      key: firm.key,
      body: { url: 'http://127.0.0.1:9/hook', events: ['firm-settings.updated'] },
    });
    expect(hook.status).toBe(201);
    const before = await recordCount(firm);
    const key = randomUUID();
    const send = () =>
      api('PATCH', '/v1/firm/me/settings', {
        ...withKey(firm, key),
        body: { enforceImpactAssessments: false },
      });

    const first = await send();
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));

    expect(await records(firm, 'FIRM_SETTINGS_UPDATED')).toHaveLength(1);
    expect(await recordCount(firm)).toBe(before + 1);
    expect(await immutableCopies(firm)).toBe(before + 1);

    // A change without a key afterwards is a second record; once its delivery exists, so does the first's.
    const other = await api('PATCH', '/v1/firm/me/settings', {
      key: firm.key,
      body: { enforceImpactAssessments: true },
    });
    expect(other.status).toBe(200);
    const deliveries = () => api('GET', `/v1/firm/me/webhooks/${hook.body.id}/deliveries`, { key: firm.key });
    await eventually(deliveries, (r) => r.body.pagination.total >= 2, 'two deliveries');
    const records_ = await records(firm, 'FIRM_SETTINGS_UPDATED');
    expect(records_).toHaveLength(2);
    const delivered = (await deliveries()).body.data.map((d: any) => d.recordId);
    expect(delivered.sort()).toEqual(records_.map((r) => r.id).sort());
    expect(await immutableCopies(firm)).toBe(before + 2);
  });

  it('replays a created resource with the same id, whatever the JSON formatting of the body', async () => {
    const firm = await createFirm();
    const key = randomUUID();
    const first = await postIncident(firm, key, incident(1));
    expect(first.status).toBe(201);
    // The same JSON value: other member order, other whitespace.
    const reordered = await api('POST', '/v1/incidents', {
      ...withKey(firm, key),
      raw: `{ "category": "AI_MODEL",\n  "severity": "LOW", "description": "A draft named a fund that does not exist", "title": "Incident 1" }`,
    });
    expect(reordered.status).toBe(201);
    expect(reordered.headers.get('idempotent-replayed')).toBe('true');
    expect(reordered.body.id).toBe(first.body.id);
    expect(reordered.body).toEqual(first.body);
    expect(await records(firm, 'INCIDENT_LOGGED')).toHaveLength(1);
    expect((await api('GET', '/v1/incidents', { key: firm.key })).body).toHaveLength(1);
  });

  it('accepts a quoted key as the same key as its bare form, and keys up to 255 characters', async () => {
    const firm = await createFirm();
    const long = 'k'.repeat(255);
    const first = await postIncident(firm, long, incident(2));
    expect(first.status).toBe(201);
    const quoted = await postIncident(firm, `"${long}"`, incident(2));
    expect(quoted.status).toBe(201);
    expect(quoted.headers.get('idempotent-replayed')).toBe('true');
    expect(quoted.body.id).toBe(first.body.id);
  });

  it('replays a write outside the ledger (webhook secret rotation) without rotating twice', async () => {
    const firm = await createFirm();
    const hook = await api('POST', '/v1/firm/me/webhooks', {
      key: firm.key,
      body: { url: 'http://127.0.0.1:9/hook', events: ['firm-settings.updated'] },
    });
    const key = randomUUID();
    const rotate = () =>
      api('POST', `/v1/firm/me/webhooks/${hook.body.id}/rotate-secret`, {
        ...withKey(firm, key),
        body: { overlapSeconds: 0 },
      });
    const first = await rotate();
    expect(first.status).toBe(200);
    expect(first.body.secret).not.toBe(hook.body.secret);
    const again = await rotate();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.secret).toBe(first.body.secret);
    const listed = await api('GET', '/v1/firm/me/webhooks', { key: firm.key });
    expect(listed.body.find((w: any) => w.id === hook.body.id).secret).toBe(first.body.secret);
    expect((await keyItem(firm, key))?.state).toBe(IDEMPOTENCY_STATE.completed);
  });

  it('replays a presigned upload URL (a route that writes nothing) with the same document key', async () => {
    const firm = await createFirm();
    const key = randomUUID();
    const send = () =>
      api('POST', '/v1/review/uploads', { ...withKey(firm, key), body: { filename: 'r.pdf' } });
    const first = await send();
    expect(first.status).toBe(200);
    const again = await send();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('Idempotency-Key: refusals', () => {
  it('refuses the same key with another body or path: 422 IDEMPOTENCY_KEY_REUSED, nothing written', async () => {
    const firm = await createFirm();
    const key = randomUUID();
    expect((await postIncident(firm, key, incident(1))).status).toBe(201);
    const otherBody = await postIncident(firm, key, incident(2));
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(otherBody.body.error.requestId).toBe(otherBody.headers.get('x-request-id'));
    const otherPath = await api('POST', '/v1/reports', {
      ...withKey(firm, key),
      body: { type: 'CONSUMER_DUTY', periodFrom: '2026-01-01', periodTo: '2026-01-31' },
    });
    expect(otherPath.status).toBe(422);
    expect(otherPath.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await records(firm, 'INCIDENT_LOGGED')).toHaveLength(1);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a list', 'a, b'],
    ['a space', 'a b'],
    ['an unterminated quote', '"abc'],
    ['a bare escape in quotes', '"a\\b"'],
  ])('answers a malformed key (%s) 400 in the envelope and writes nothing', async (_what, value) => {
    const firm = await createFirm();
    const response = await postIncident(firm, value, incident(3));
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details).toEqual([
      { path: 'headers.Idempotency-Key', message: expect.any(String) },
    ]);
    expect(await records(firm, 'INCIDENT_LOGGED')).toHaveLength(0);
  });

  it('keeps keys per firm: the same key on another firm is another request', async () => {
    const [a, b] = await Promise.all([createFirm(), createFirm()]);
    const key = randomUUID();
    const first = await postIncident(a, key, incident(4));
    const second = await postIncident(b, key, incident(4));
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
    expect(await records(b, 'INCIDENT_LOGGED')).toHaveLength(1);
  });

  it('runs concurrent requests with one key once: the others get the answer or 409 with Retry-After', async () => {
    const firm = await createFirm();
    const key = randomUUID();
    const answers = await Promise.all([1, 2, 3, 4, 5, 6].map(() => postIncident(firm, key, incident(5))));
    const created = answers.filter((r) => r.status === 201);
    const inUse = answers.filter((r) => r.status === 409);
    expect(answers.filter((r) => r.status !== 201 && r.status !== 409)).toEqual([]);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const r of inUse) {
      expect(r.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(await records(firm, 'INCIDENT_LOGGED')).toHaveLength(1);
  });

  it('releases the key of an answer that is not kept (409), so a retry runs again', async () => {
    const firm = await createFirm();
    const created = await api('POST', '/v1/incidents', { key: firm.key, body: incident(6) });
    const key = randomUUID();
    // OPEN → OPEN with nothing else is a no-op; CLOSED → INVESTIGATING is a conflict once closed.
    const close = await api('POST', `/v1/incidents/${created.body.id}`, {
      key: firm.key,
      body: { status: 'CLOSED', rootCause: 'A prompt' },
    });
    expect(close.status).toBe(200);
    const reopen = () =>
      api('POST', `/v1/incidents/${created.body.id}`, {
        ...withKey(firm, key),
        body: { status: 'INVESTIGATING' },
      });
    const refused = await reopen();
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONFLICT');
    expect(await keyItem(firm, key)).toBeUndefined();
    const again = await reopen();
    expect(again.status).toBe(409);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('never keeps a new API key: a retry is told the key was created, and no second key is made', async () => {
    const firm = await createFirm();
    const before = (await api('GET', '/v1/firm/me/api-keys', { key: firm.key })).body.length;
    const key = randomUUID();
    const send = () => api('POST', '/v1/firm/me/api-keys', { ...withKey(firm, key), body: { name: 'CI' } });
    const first = await send();
    expect(first.status).toBe(201);
    const again = await send();
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(again.headers.get('retry-after')).toBeNull();
    expect(JSON.stringify(again.body)).not.toContain(first.body.key);
    expect((await keyItem(firm, key))?.state).toBe(IDEMPOTENCY_STATE.committed);
    expect(JSON.stringify(await keyItem(firm, key))).not.toContain(first.body.key);
    const after = (await api('GET', '/v1/firm/me/api-keys', { key: firm.key })).body.length;
    expect(after).toBe(before + 1);
  });
});

describe('Idempotency-Key: a crash between the write and the answer', () => {
  const body = incident(7);
  const fingerprint = requestFingerprint({ method: 'POST', path: '/v1/incidents', query: '', body });

  async function putKey(firm: TestFirm, key: string, item: Record<string, unknown>) {
    const deps = stackDeps();
    const now = Date.now();
    await deps.db.send(
      new PutCommand({
        TableName: deps.tables.main,
        Item: {
          ...keys.idempotencyKey(firm.firmId, sha256Hex(key)),
          firmId: firm.firmId,
          fingerprint,
          createdAt: new Date(now).toISOString(),
          [TTL_ATTRIBUTE]: Math.floor(now / 1000) + 86_400,
          ...item,
        },
      }),
    );
  }

  it('answers a retry whose first write committed but whose answer was lost 409, naming the record', async () => {
    const firm = await createFirm();
    const key = randomUUID();
    await putKey(firm, key, {
      state: IDEMPOTENCY_STATE.committed,
      token: randomUUID(),
      lockedUntil: Date.now() - 1,
      recordId: 'rec_01KCRASHEDCRASHEDCRASHED00',
    });
    const retry = await postIncident(firm, key, body);
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(retry.body.error.message).toContain('rec_01KCRASHEDCRASHEDCRASHED00');
    expect(retry.headers.get('retry-after')).toBeNull();
    expect(await records(firm, 'INCIDENT_LOGGED')).toHaveLength(0);
  });

  it('takes over the key of a crashed request, and that request’s late append then fails alone', async () => {
    const firm = await createFirm();
    const key = randomUUID();
    const crashedToken = randomUUID();
    // The crashed instance's claim: still IN_PROGRESS, its lock run out.
    await putKey(firm, key, {
      state: IDEMPOTENCY_STATE.inProgress,
      token: crashedToken,
      lockedUntil: Date.now() - 1,
    });
    const retry = await postIncident(firm, key, body);
    expect(retry.status).toBe(201);
    expect((await keyItem(firm, key))?.state).toBe(IDEMPOTENCY_STATE.completed);

    // The crashed request's append, committed only now (as a holder would commit an intent it left): its
    // key mark carries the old token, so it fails alone and writes nothing.
    const deps = stackDeps();
    const late = runWithClaim({ firmId: firm.firmId, keyHash: sha256Hex(key), token: crashedToken }, () =>
      appendRecord(deps, {
        firmId: firm.firmId,
        eventType: 'INCIDENT_LOGGED',
        actor: { type: 'API_KEY', id: 'crashed', name: 'crashed' } as never,
        documentMetadata: { incidentId: 'inc_crashed' },
      }),
    );
    const { outcome } = await late;
    expect(outcome.status).toBe('rejected');
    expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    expect(await records(firm, 'INCIDENT_LOGGED')).toHaveLength(1);
    expect((await records(firm, 'INCIDENT_LOGGED'))[0].documentMetadata.incidentId).toBe(retry.body.id);

    // And the retry of the retry is the stored answer.
    const third = await postIncident(firm, key, body);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(third.body.id).toBe(retry.body.id);
  });

  it('refuses a retry while the first request still holds the key: 409 with Retry-After', async () => {
    const firm = await createFirm();
    const key = randomUUID();
    await putKey(firm, key, {
      state: IDEMPOTENCY_STATE.inProgress,
      token: randomUUID(),
      lockedUntil: Date.now() + 30_000,
    });
    const retry = await postIncident(firm, key, body);
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(Number(retry.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await records(firm, 'INCIDENT_LOGGED')).toHaveLength(0);
  });
});

describe('Idempotency-Key in the description', () => {
  it('is a header parameter of every POST and PATCH, with its 409 and 422 answers', async () => {
    const { status, body } = await api('GET', '/openapi.json');
    expect(status).toBe(200);
    const operations = Object.values(body.paths as Record<string, Record<string, any>>).flatMap((ops) =>
      Object.entries(ops)
        .filter(([method]) => method === 'post' || method === 'patch')
        .map(([, operation]) => operation),
    );
    expect(operations.length).toBeGreaterThan(20);
    for (const operation of operations) {
      const header = operation.parameters?.find((p: any) => p.name === 'Idempotency-Key');
      expect({ operation: operation.operationId, header }).toMatchObject({
        header: { in: 'header', required: false, schema: { type: 'string' } },
      });
      expect(operation.responses['400']).toBeDefined();
      expect(operation.responses['409'].description).toContain('IDEMPOTENCY_KEY_IN_USE');
      expect(operation.responses['422'].description).toContain('IDEMPOTENCY_KEY_REUSED');
    }
    expect(body.components.schemas.Error.properties.error.properties.code.enum).toEqual(
      expect.arrayContaining(['IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_REUSED']),
    );
  });
});
