import { createHash, randomBytes } from 'node:crypto';
import {
  api,
  createFirm,
  seedApprovedAssessment,
  stackDeps,
  type TestFirm,
  uploadDocument,
} from './helpers.js';

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
const HOUR = 60 * 60 * 1000;

/** Uploads bytes for real: presign, then PUT to the URL with the content type. */
async function upload(
  firm: TestFirm,
  bytes: Uint8Array = new Uint8Array(randomBytes(2_000)),
  filename = 'Suitability report.pdf',
): Promise<{ documentKey: string; bytes: Uint8Array }> {
  return { documentKey: await uploadDocument({ key: firm.key }, bytes, filename), bytes };
}

const baseBody = (documentKey: string, extra: Record<string, unknown> = {}) => ({
  documentKey,
  documentType: 'SUITABILITY_REPORT',
  clientReference: 'CLI-001',
  documentReference: 'DOC-001',
  factFindSummary: { age: 54, objectives: ['retirement'] },
  ...extra,
});

const submit = (firm: TestFirm, body: unknown, prefix = '/v1/review') =>
  api('POST', `${prefix}/jobs`, { key: firm.key, body });

describe('POST /v1/review/jobs', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('BOTH');
  });

  it('submits an upload: 201 with every field, ledger record, immutable copy, upload consumed', async () => {
    const { documentKey, bytes } = await upload(firm);
    const response = await submit(
      firm,
      baseBody(documentKey, {
        priority: 'URGENT',
        clientSegments: { ageBand: '50-59', riskProfile: 'balanced' },
        aiContext: { confidence: 0.9, inputs: ['fact find'] },
      }),
    );
    expect(response.status).toBe(201);
    const job = response.body;
    expect(Object.keys(job).sort()).toEqual(
      [
        'id',
        'firmId',
        'documentReference',
        'documentType',
        'documentUrl',
        'documentHash',
        'clientReference',
        'factFindSummary',
        'status',
        'priority',
        'outcome',
        'outcomeReason',
        'modifications',
        'assignedReviewerId',
        'assignedAt',
        'completedAt',
        'submittedAt',
        'slaDeadline',
        'aiContext',
        'vulnerabilityFlags',
        'requiresSeniorSignOff',
        'clientSegments',
        'ledgerRecordId',
        'certificateId',
        'annotationCount',
        'slaBreachedAt',
      ].sort(),
    );
    expect(job.id).toMatch(/^job_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(job).toMatchObject({
      firmId: firm.firmId,
      documentReference: 'DOC-001',
      documentType: 'SUITABILITY_REPORT',
      documentUrl: `immutable://documents/${firm.firmId}/${job.id}/Suitability_report.pdf`,
      documentHash: sha256(bytes),
      clientReference: 'CLI-001',
      factFindSummary: { age: 54, objectives: ['retirement'] },
      status: 'QUEUED',
      priority: 'URGENT',
      outcome: null,
      outcomeReason: null,
      modifications: null,
      assignedReviewerId: null,
      assignedAt: null,
      completedAt: null,
      aiContext: { confidence: 0.9, inputs: ['fact find'] },
      vulnerabilityFlags: [],
      requiresSeniorSignOff: false,
      clientSegments: { ageBand: '50-59', riskProfile: 'balanced' },
      ledgerRecordId: null,
      certificateId: null,
    });
    expect(Date.parse(job.slaDeadline) - Date.parse(job.submittedAt)).toBe(48 * HOUR);

    const records = await api('GET', '/v1/ledger/records?eventType=DOCUMENT_SUBMITTED', { key: firm.key });
    const record = records.body.data.find((r: { reviewJobId: string }) => r.reviewJobId === job.id);
    expect(record).toBeDefined();
    expect(record.documentHash).toBe(sha256(bytes));
    expect(record.documentMetadata).toEqual({
      jobId: job.id,
      documentReference: 'DOC-001',
      documentType: 'SUITABILITY_REPORT',
      clientReference: 'CLI-001',
      priority: 'URGENT',
      requiresSeniorSignOff: false,
      vulnerabilityFlags: [],
      aiModel: null,
      documentUrl: job.documentUrl,
    });

    const copy = await stackDeps().objects.get(
      'immutable',
      `documents/${firm.firmId}/${job.id}/Suitability_report.pdf`,
    );
    expect(copy).not.toBeNull();
    expect(Buffer.from(copy!.body).equals(Buffer.from(bytes))).toBe(true);
    expect(await stackDeps().objects.get('uploads', documentKey)).toBeNull();
  });

  it('defaults: STANDARD priority, null aiContext, no flags, empty segments', async () => {
    const { documentKey } = await upload(firm);
    const { status, body } = await submit(firm, baseBody(documentKey));
    expect(status).toBe(201);
    expect(body).toMatchObject({
      priority: 'STANDARD',
      aiContext: null,
      vulnerabilityFlags: [],
      requiresSeniorSignOff: false,
      clientSegments: {},
    });
  });

  it('vulnerability flags force senior sign-off, even when the caller says false', async () => {
    const { documentKey } = await upload(firm);
    const { status, body } = await submit(
      firm,
      baseBody(documentKey, { vulnerabilityFlags: ['health', 'life_event'], requiresSeniorSignOff: false }),
    );
    expect(status).toBe(201);
    expect(body.requiresSeniorSignOff).toBe(true);
    expect(body.vulnerabilityFlags).toEqual(['health', 'life_event']);
  });

  it('refuses a second submission of the same key with 409 CONFLICT', async () => {
    const { documentKey } = await upload(firm);
    expect((await submit(firm, baseBody(documentKey))).status).toBe(201);
    const second = await submit(firm, baseBody(documentKey));
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('CONFLICT');
  });

  it.each([
    ['an unknown document type', { documentType: 'NO_SUCH_TYPE' }],
    ['an unknown priority', { priority: 'LOW' }],
    ['an unknown vulnerability flag', { vulnerabilityFlags: ['mood'] }],
    ['an unknown field', { colour: 'blue' }],
    ['a non-string clientSegments value', { clientSegments: { ageBand: 50 } }],
    ['a non-object factFindSummary', { factFindSummary: 'x' }],
  ])('400 for %s', async (_name, extra) => {
    const { documentKey } = await upload(firm);
    const { status, body } = await submit(firm, baseBody(documentKey, extra));
    expect(status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details.length).toBeGreaterThan(0);
  });

  it('400 for a missing required field', async () => {
    const { documentKey } = await upload(firm);
    const { clientReference: _omitted, ...body } = baseBody(documentKey);
    const response = await submit(firm, body);
    expect(response.status).toBe(400);
    expect(response.body.error.details.map((d: { path: string }) => d.path)).toContain(
      'body.clientReference',
    );
  });

  it('404 DOCUMENT_NOT_FOUND for another firm’s key, a key never uploaded, a malformed key', async () => {
    const other = await createFirm('BOTH');
    const { documentKey: othersKey } = await upload(other);
    const presigned = await api('POST', '/v1/review/uploads', { key: firm.key, body: { filename: 'a.pdf' } });
    for (const documentKey of [othersKey, presigned.body.documentKey, 'uploads/../etc/passwd']) {
      const { status, body } = await submit(firm, baseBody(documentKey));
      expect(status).toBe(404);
      expect(body.error.code).toBe('DOCUMENT_NOT_FOUND');
    }
    // The other firm's upload is untouched and still usable by its owner.
    expect((await submit(other, baseBody(othersKey))).status).toBe(201);
  });

  it('403 on a LEDGER plan', async () => {
    const ledgerOnly = await createFirm('LEDGER');
    const { status, body } = await submit(ledgerOnly, baseBody(`uploads/${ledgerOnly.firmId}/x/a.pdf`));
    expect(status).toBe(403);
    expect(body.error.code).toBe('FORBIDDEN');
  });

  it('is served under /v1/principal too', async () => {
    const { documentKey } = await upload(firm);
    const { status, body } = await submit(firm, baseBody(documentKey), '/v1/principal');
    expect(status).toBe(201);
    const fetched = await api('GET', `/v1/principal/jobs/${body.id}`, { key: firm.key });
    expect(fetched.status).toBe(200);
    expect(fetched.body.id).toBe(body.id);
  });

  it('increments the stats job count', async () => {
    const fresh = await createFirm('PRINCIPAL');
    const before = await api('GET', '/v1/firm/me/stats', { key: fresh.key });
    const { documentKey } = await upload(fresh);
    expect((await submit(fresh, baseBody(documentKey))).status).toBe(201);
    const after = await api('GET', '/v1/firm/me/stats', { key: fresh.key });
    expect(after.body.jobCount).toBe(before.body.jobCount + 1);
  });
});

describe('evidence is never orphaned (issue 12 part 3)', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('BOTH');
  });

  /** The firm's document copies in the local immutable store. */
  async function documentCopies(): Promise<string[]> {
    const found: string[] = [];
    for await (const key of stackDeps().objects.list('immutable', `documents/${firm.firmId}/`))
      found.push(key);
    return found;
  }

  it('failed submissions leave no extra copy; the retry commits the one copy its record names', async () => {
    const before = await documentCopies();
    const { documentKey, bytes } = await upload(firm);
    // A number no store can hold exactly: refused by validation, or at the latest by the database write.
    for (let attempt = 0; attempt < 3; attempt++) {
      const failed = await api('POST', '/v1/review/jobs', {
        key: firm.key,
        raw: JSON.stringify(baseBody(documentKey)).replace('"age":54', '"age":1e21'),
      });
      expect(failed.status).toBeGreaterThanOrEqual(400);
      expect(failed.body.error.code).toBeDefined();
    }
    const afterFailures = (await documentCopies()).filter((key) => !before.includes(key));
    expect(afterFailures.length).toBeLessThanOrEqual(1);

    const accepted = await submit(firm, baseBody(documentKey));
    expect(accepted.status).toBe(201);
    const added = (await documentCopies()).filter((key) => !before.includes(key));
    expect(added).toEqual([accepted.body.documentUrl.replace('immutable://', '')]);
    const copy = await stackDeps().objects.get('immutable', added[0]!);
    expect(Buffer.from(copy!.body).equals(Buffer.from(bytes))).toBe(true);
  });

  it('concurrent submissions of one upload: one job, one copy, the others 409', async () => {
    const before = await documentCopies();
    const { documentKey } = await upload(firm);
    const responses = await Promise.all(Array.from({ length: 5 }, () => submit(firm, baseBody(documentKey))));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409]);
    const job = responses.find((r) => r.status === 201)!.body;
    const added = (await documentCopies()).filter((key) => !before.includes(key));
    expect(added).toEqual([job.documentUrl.replace('immutable://', '')]);
  });
});

describe('impact-assessment gate', () => {
  const model = { provider: 'acme-ai', version: '2.1' };

  it('409 IMPACT_ASSESSMENT_REQUIRED without an APPROVED assessment; passes with one', async () => {
    const firm = await createFirm('BOTH');
    const { documentKey, bytes } = await upload(firm);
    const body = baseBody(documentKey, { aiContext: { model, confidence: 0.7 } });
    const refused = await submit(firm, body);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('IMPACT_ASSESSMENT_REQUIRED');
    // Another version of the model does not count.
    await seedApprovedAssessment(firm.firmId, model.provider, '2.0');
    expect((await submit(firm, body)).status).toBe(409);

    await seedApprovedAssessment(firm.firmId, model.provider, model.version);
    const accepted = await submit(firm, body);
    expect(accepted.status).toBe(201);
    expect(accepted.body.aiContext).toEqual({ model, confidence: 0.7 });
    expect(accepted.body.documentHash).toBe(sha256(bytes));
    const records = await api('GET', '/v1/ledger/records?eventType=DOCUMENT_SUBMITTED', { key: firm.key });
    expect(records.body.data[0].documentMetadata.aiModel).toBe('acme-ai/2.1');

    // Superseded (index item removed): refused again.
    await seedApprovedAssessment(firm.firmId, model.provider, model.version, true);
    const { documentKey: next } = await upload(firm);
    expect((await submit(firm, baseBody(next, { aiContext: { model } }))).status).toBe(409);
  });

  it('enforceImpactAssessments=false lets a declared model through', async () => {
    const firm = await createFirm('BOTH');
    const patch = await api('PATCH', '/v1/firm/me/settings', {
      key: firm.key,
      body: { enforceImpactAssessments: false },
    });
    expect(patch.status).toBe(200);
    const { documentKey } = await upload(firm);
    expect((await submit(firm, baseBody(documentKey, { aiContext: { model } }))).status).toBe(201);
  });

  it('jobs without aiContext.model are not gated', async () => {
    const firm = await createFirm('BOTH');
    const { documentKey } = await upload(firm);
    expect((await submit(firm, baseBody(documentKey, { aiContext: { confidence: 1 } }))).status).toBe(201);
  });
});

describe('GET /v1/review/jobs and /v1/review/jobs/{id}', () => {
  let firm: TestFirm;
  let other: TestFirm;
  const ids: string[] = [];
  beforeAll(async () => {
    [firm, other] = await Promise.all([createFirm('BOTH'), createFirm('BOTH')]);
    for (let i = 0; i < 3; i++) {
      const { documentKey } = await upload(firm);
      const { status, body } = await submit(firm, baseBody(documentKey, { documentReference: `DOC-${i}` }));
      expect(status).toBe(201);
      ids.push(body.id);
    }
    const { documentKey } = await upload(other);
    expect((await submit(other, baseBody(documentKey))).status).toBe(201);
  });

  it('lists the firm’s jobs newest first, paginated; never another firm’s', async () => {
    const page1 = await api('GET', '/v1/review/jobs?pageSize=2', { key: firm.key });
    expect(page1.status).toBe(200);
    // The total is known on the page that ends the list (issue 14: counting would read every job).
    expect(page1.body.pagination).toEqual({
      page: 1,
      pageSize: 2,
      total: null,
      totalPages: null,
      nextCursor: expect.any(String),
    });
    expect(page1.body.data.map((j: { id: string }) => j.id)).toEqual([ids[2], ids[1]]);
    const page2 = await api('GET', '/v1/review/jobs?pageSize=2&page=2', { key: firm.key });
    expect(page2.body.data.map((j: { id: string }) => j.id)).toEqual([ids[0]]);
    expect(page2.body.pagination).toEqual({
      page: 2,
      pageSize: 2,
      total: 3,
      totalPages: 2,
      nextCursor: null,
    });
    expect(page1.body.data.every((j: { firmId: string }) => j.firmId === firm.firmId)).toBe(true);
  });

  it('filters by status', async () => {
    const queued = await api('GET', '/v1/review/jobs?status=QUEUED', { key: firm.key });
    expect(queued.body.pagination.total).toBe(3);
    const approved = await api('GET', '/v1/review/jobs?status=APPROVED', { key: firm.key });
    expect(approved.body).toEqual({
      data: [],
      pagination: { page: 1, pageSize: 25, total: 0, totalPages: 0, nextCursor: null },
    });
    expect((await api('GET', '/v1/review/jobs?status=DONE', { key: firm.key })).status).toBe(400);
  });

  it('walks the list by cursor, all and by status, like the page numbers; refuses foreign, other-query and altered cursors', async () => {
    for (const query of ['pageSize=1', 'pageSize=2&status=QUEUED']) {
      const seen: string[] = [];
      let path = `/v1/review/jobs?${query}`;
      for (let pages = 0; ; pages++) {
        expect(pages).toBeLessThan(10);
        const { status, body } = await api('GET', path, { key: firm.key });
        expect(status).toBe(200);
        seen.push(...body.data.map((j: { id: string }) => j.id));
        if (body.pagination.nextCursor === null) break;
        path = `/v1/review/jobs?${query}&page=7&cursor=${encodeURIComponent(body.pagination.nextCursor)}`;
      }
      expect(seen).toEqual([ids[2], ids[1], ids[0]]);
    }
    const first = await api('GET', '/v1/review/jobs?pageSize=1', { key: firm.key });
    const cursor = encodeURIComponent(first.body.pagination.nextCursor);
    const second = await api('GET', `/v1/review/jobs?pageSize=1&cursor=${cursor}`, { key: firm.key });
    expect(second.body.data).toEqual(
      (await api('GET', '/v1/review/jobs?pageSize=1&page=2', { key: firm.key })).body.data,
    );
    for (const [key, path] of [
      [other.key, `/v1/review/jobs?pageSize=1&cursor=${cursor}`],
      [firm.key, `/v1/review/jobs?pageSize=1&status=QUEUED&cursor=${cursor}`],
      [firm.key, `/v1/review/jobs?pageSize=2&cursor=${cursor}`],
      [firm.key, `/v1/review/jobs?pageSize=1&cursor=${cursor.slice(0, -2)}`],
      [firm.key, `/v1/ledger/records?pageSize=1&cursor=${cursor}`],
    ] as const) {
      const refused = await api('GET', path, { key });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.map((d: { path: string }) => d.path)).toEqual(['query.cursor']);
    }
  });

  it('gets one job with its (empty) review actions; 404 for another firm’s or an unknown id', async () => {
    const { status, body } = await api('GET', `/v1/review/jobs/${ids[0]}`, { key: firm.key });
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: ids[0], documentReference: 'DOC-0', reviewActions: [] });
    const foreign = await api('GET', `/v1/review/jobs/${ids[0]}`, { key: other.key });
    expect(foreign.status).toBe(404);
    expect((await api('GET', '/v1/review/jobs/job_nope', { key: firm.key })).status).toBe(404);
  });
});
