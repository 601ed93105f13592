import { randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/store/keys.js';
import { api, createFirm, seedUser, stackDeps, type TestFirm, tokenFor, uploadDocument } from './helpers.js';

const AREAS = ['productsAndServices', 'priceAndValue', 'consumerUnderstanding', 'consumerSupport'];
const emptyOutcomes = Object.fromEntries(AREAS.map((a) => [a, { response: '', riskRating: 'LOW' }]));

interface Actors {
  firm: TestFirm;
  admin: string;
  lead: string;
  leadId: string;
  reviewer: string;
}

let n = 0;
async function actorsOf(firm: TestFirm): Promise<Actors> {
  n += 1;
  const lead = await seedUser(firm.firmId, 'LEAD_REVIEWER', `lead-${n}-${firm.firmId}@firm.test`);
  const reviewer = await seedUser(firm.firmId, 'REVIEWER', `rev-${n}-${firm.firmId}@firm.test`);
  const [admin, leadToken, reviewerToken] = await Promise.all([
    tokenFor(firm.firmId, firm.admin.email),
    tokenFor(firm.firmId, lead.email),
    tokenFor(firm.firmId, reviewer.email),
  ]);
  return { firm, admin, lead: leadToken, leadId: lead.id, reviewer: reviewerToken };
}

const create = (firm: TestFirm, body: unknown, token?: string) =>
  api('POST', '/v1/impact-assessments', token ? { token, body } : { key: firm.key, body });
const update = (id: string, body: unknown, cred: { key?: string; token?: string }) =>
  api('POST', `/v1/impact-assessments/${id}`, { ...cred, body });
const supersede = (id: string, cred: { key?: string; token?: string }) =>
  api('POST', `/v1/impact-assessments/${id}/supersede`, cred);

/** Creates an assessment and takes it to PENDING_SIGNOFF. */
async function pending(firm: TestFirm, extra: Record<string, unknown> = {}): Promise<string> {
  const made = await create(firm, { useCase: 'Drafting', description: 'Drafts reports', ...extra });
  expect(made.status).toBe(201);
  const moved = await update(made.body.id, { status: 'PENDING_SIGNOFF' }, { key: firm.key });
  expect(moved.status).toBe(200);
  return made.body.id;
}

/**
 * The approved assessment as approval returned it; only certificateId may have been filled since, by the
 * certificate worker that the approval record triggers (docs/architecture.md §7d).
 */
async function expectApprovedUnchanged(
  key: string,
  id: string,
  approved: Record<string, unknown>,
): Promise<void> {
  const { body: now } = await api('GET', `/v1/impact-assessments/${id}`, { key });
  expect(now.certificateId === null || /^cert_[0-9A-Z]{26}$/.test(now.certificateId)).toBe(true);
  expect({ ...now, certificateId: approved.certificateId }).toEqual(approved);
}

describe('impact assessments: create, get, list', () => {
  let a: Actors;
  beforeAll(async () => {
    a = await actorsOf(await createFirm('BOTH'));
  });

  it('creates a DRAFT of template 1 with four empty LOW outcome areas', async () => {
    const { status, body } = await create(a.firm, {
      useCase: 'Suitability drafting',
      description: 'LLM drafts',
    });
    expect(status).toBe(201);
    expect(body.id).toMatch(/^ia_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(body).toEqual({
      id: body.id,
      firmId: a.firm.firmId,
      useCase: 'Suitability drafting',
      description: 'LLM drafts',
      modelProvider: null,
      modelVersion: null,
      templateVersion: 1,
      outcomes: emptyOutcomes,
      status: 'DRAFT',
      createdById: null,
      createdBy: {
        id: expect.stringMatching(/^key_/),
        type: 'API_KEY',
        name: 'default',
        email: null,
        role: null,
      },
      signedOffById: null,
      signedOffBy: null,
      signedOffAt: null,
      createdAt: body.createdAt,
      updatedAt: body.createdAt,
      ledgerRecordId: null,
      certificateId: null,
    });
    expect((await api('GET', `/v1/impact-assessments/${body.id}`, { key: a.firm.key })).body).toEqual(body);
  });

  it('records the signed-in creator and merges given outcome areas over the defaults', async () => {
    const { status, body } = await create(
      a.firm,
      {
        useCase: 'Fact-find summary',
        description: 'Summarises fact finds',
        modelProvider: 'acme-ai',
        modelVersion: '2.1',
        outcomes: { priceAndValue: { riskRating: 'HIGH' }, consumerSupport: { response: 'Human review' } },
      },
      a.reviewer,
    );
    expect(status).toBe(201);
    expect(body.createdById).toMatch(/^usr_/);
    expect(body.createdBy).toMatchObject({ id: body.createdById, type: 'USER', role: 'REVIEWER' });
    expect(body.outcomes).toEqual({
      ...emptyOutcomes,
      priceAndValue: { response: '', riskRating: 'HIGH' },
      consumerSupport: { response: 'Human review', riskRating: 'LOW' },
    });
    expect(body).toMatchObject({ modelProvider: 'acme-ai', modelVersion: '2.1' });
  });

  it.each([
    ['no useCase', { description: 'd' }, 'body.useCase'],
    ['no description', { useCase: 'u' }, 'body.description'],
    ['blank useCase', { useCase: '   ', description: 'd' }, 'body.useCase'],
    [
      'provider without version',
      { useCase: 'u', description: 'd', modelProvider: 'acme' },
      'body.modelVersion',
    ],
    ['version without provider', { useCase: 'u', description: 'd', modelVersion: '1' }, 'body.modelProvider'],
    [
      '"#" in the provider',
      { useCase: 'u', description: 'd', modelProvider: 'a#b', modelVersion: '1' },
      'body.modelProvider',
    ],
    ['an unknown area', { useCase: 'u', description: 'd', outcomes: { fairness: {} } }, 'body.outcomes'],
    [
      'an unknown rating',
      { useCase: 'u', description: 'd', outcomes: { priceAndValue: { riskRating: 'SEVERE' } } },
      'body.outcomes.priceAndValue.riskRating',
    ],
    ['templateVersion (server-set)', { useCase: 'u', description: 'd', templateVersion: 2 }, 'body'],
    ['status on creation', { useCase: 'u', description: 'd', status: 'APPROVED' }, 'body'],
  ])('400 for %s, nothing stored', async (_name, body, path) => {
    const before = (await api('GET', '/v1/impact-assessments', { key: a.firm.key })).body.length;
    const response = await create(a.firm, body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
    expect((await api('GET', '/v1/impact-assessments', { key: a.firm.key })).body).toHaveLength(before);
  });

  it("lists the firm's assessments newest first, never another firm's", async () => {
    const other = await createFirm('LEDGER');
    const mine = await create(other, { useCase: 'first', description: 'd' });
    const second = await create(other, { useCase: 'second', description: 'd' });
    const list = await api('GET', '/v1/impact-assessments', { key: other.key });
    expect(list.status).toBe(200);
    expect(list.body.map((x: { id: string }) => x.id)).toEqual([second.body.id, mine.body.id]);
    const theirs = await api('GET', '/v1/impact-assessments', { key: a.firm.key });
    expect(theirs.body.some((x: { firmId: string }) => x.firmId !== a.firm.firmId)).toBe(false);
  });

  it("404 for another firm's assessment on every endpoint, and for unknown ids", async () => {
    const other = await createFirm('LEDGER');
    const id = await pending(other);
    for (const call of [
      api('GET', `/v1/impact-assessments/${id}`, { key: a.firm.key }),
      update(id, { useCase: 'stolen' }, { key: a.firm.key }),
      update(id, { status: 'APPROVED' }, { token: a.admin }),
      supersede(id, { key: a.firm.key }),
      api('GET', '/v1/impact-assessments/ia_01ARZ3NDEKTSV4RRFFQ69G5FAV', { key: a.firm.key }),
      api('GET', '/v1/impact-assessments/not-an-id', { key: a.firm.key }),
    ]) {
      const response = await call;
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    const untouched = await api('GET', `/v1/impact-assessments/${id}`, { key: other.key });
    expect(untouched.body).toMatchObject({ useCase: 'Drafting', status: 'PENDING_SIGNOFF' });
  });

  it('401 without a credential', async () => {
    expect((await api('GET', '/v1/impact-assessments')).status).toBe(401);
    expect(
      (await api('POST', '/v1/impact-assessments', { body: { useCase: 'u', description: 'd' } })).status,
    ).toBe(401);
  });
});

describe('impact assessments: status graph', () => {
  let a: Actors;
  beforeAll(async () => {
    a = await actorsOf(await createFirm('BOTH'));
  });

  it('edits fields of a DRAFT; an empty body and an unknown status are 400', async () => {
    const made = await create(a.firm, { useCase: 'u', description: 'd' });
    const edited = await update(
      made.body.id,
      {
        description: 'new',
        outcomes: { consumerUnderstanding: { response: 'Plain English', riskRating: 'MEDIUM' } },
      },
      { key: a.firm.key },
    );
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ useCase: 'u', description: 'new', status: 'DRAFT' });
    expect(edited.body.outcomes.consumerUnderstanding).toEqual({
      response: 'Plain English',
      riskRating: 'MEDIUM',
    });
    expect(edited.body.outcomes.priceAndValue).toEqual({ response: '', riskRating: 'LOW' });
    expect(edited.body.updatedAt >= made.body.updatedAt).toBe(true);

    expect((await update(made.body.id, {}, { key: a.firm.key })).status).toBe(400);
    const bad = await update(made.body.id, { status: 'ARCHIVED' }, { key: a.firm.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('body.status');
    const resolved = await update(
      made.body.id,
      { signedOffAt: new Date().toISOString() },
      { key: a.firm.key },
    );
    expect(resolved.status).toBe(400);
    const after = await api('GET', `/v1/impact-assessments/${made.body.id}`, { key: a.firm.key });
    expect(after.body).toEqual(edited.body);
  });

  it.each([
    ['DRAFT', 'APPROVED'],
    ['DRAFT', 'REJECTED'],
    ['DRAFT', 'SUPERSEDED'],
    ['PENDING_SIGNOFF', 'SUPERSEDED'],
    ['REJECTED', 'APPROVED'],
    ['REJECTED', 'PENDING_SIGNOFF'],
  ])('409 CONFLICT for %s -> %s, nothing changes', async (from, to) => {
    const made = await create(a.firm, { useCase: 'u', description: 'd' });
    const id = made.body.id;
    if (from !== 'DRAFT') await update(id, { status: 'PENDING_SIGNOFF' }, { key: a.firm.key });
    if (from === 'REJECTED') await update(id, { status: 'REJECTED' }, { key: a.firm.key });
    const before = await api('GET', `/v1/impact-assessments/${id}`, { key: a.firm.key });
    expect(before.body.status).toBe(from);
    const response = await update(id, { status: to, useCase: 'changed' }, { token: a.admin });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
    expect((await api('GET', `/v1/impact-assessments/${id}`, { key: a.firm.key })).body).toEqual(before.body);
  });

  it('PENDING_SIGNOFF can be rejected by any credential, reworked as a DRAFT, withdrawn and resubmitted', async () => {
    const id = await pending(a.firm);
    const rejected = await update(id, { status: 'REJECTED' }, { key: a.firm.key });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'REJECTED', signedOffAt: null, ledgerRecordId: null });
    const edited = await update(id, { useCase: 'Fixed' }, { token: a.reviewer });
    expect(edited.body).toMatchObject({ status: 'REJECTED', useCase: 'Fixed' });
    expect((await update(id, { status: 'DRAFT' }, { key: a.firm.key })).body.status).toBe('DRAFT');
    expect((await update(id, { status: 'PENDING_SIGNOFF' }, { key: a.firm.key })).body.status).toBe(
      'PENDING_SIGNOFF',
    );
    expect((await update(id, { status: 'DRAFT' }, { key: a.firm.key })).body.status).toBe('DRAFT');
  });

  it('403 when an API key or a REVIEWER approves; nothing changes and no record is written', async () => {
    const id = await pending(a.firm);
    for (const cred of [{ key: a.firm.key }, { token: a.reviewer }]) {
      const response = await update(id, { status: 'APPROVED' }, cred);
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('FORBIDDEN');
    }
    const after = await api('GET', `/v1/impact-assessments/${id}`, { key: a.firm.key });
    expect(after.body).toMatchObject({ status: 'PENDING_SIGNOFF', signedOffAt: null, ledgerRecordId: null });
    const records = await api('GET', '/v1/ledger/records?eventType=IMPACT_ASSESSMENT_APPROVED', {
      key: a.firm.key,
    });
    expect(records.body.data.some((r: any) => r.documentMetadata.assessmentId === id)).toBe(false);
  });

  it('a LEAD_REVIEWER approves: signer stamped, IMPACT_ASSESSMENT_APPROVED with the snapshot, then immutable', async () => {
    const id = await pending(a.firm, {
      modelProvider: 'acme-ai',
      modelVersion: '3.0',
      outcomes: { productsAndServices: { response: 'Target market checked', riskRating: 'MEDIUM' } },
    });
    const approved = await update(
      id,
      { status: 'APPROVED', description: 'Final wording' },
      { token: a.lead },
    );
    expect(approved.status).toBe(200);
    const body = approved.body;
    expect(body).toMatchObject({
      status: 'APPROVED',
      description: 'Final wording',
      signedOffById: a.leadId,
      signedOffBy: { id: a.leadId, type: 'USER', role: 'LEAD_REVIEWER', name: 'LEAD_REVIEWER user' },
      certificateId: null,
    });
    expect(body.signedOffAt).toBe(body.updatedAt);
    expect(body.ledgerRecordId).toMatch(/^rec_/);

    const record = await api('GET', `/v1/ledger/records/${body.ledgerRecordId}`, { key: a.firm.key });
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      eventType: 'IMPACT_ASSESSMENT_APPROVED',
      actorId: a.leadId,
      actorName: 'LEAD_REVIEWER user',
      actorFcaRef: 'ABC12345',
      documentHash: '',
      reviewJobId: null,
    });
    expect(record.body.documentMetadata).toEqual({
      assessmentId: id,
      useCase: 'Drafting',
      description: 'Final wording',
      modelProvider: 'acme-ai',
      modelVersion: '3.0',
      templateVersion: 1,
      outcomes: {
        ...emptyOutcomes,
        productsAndServices: { response: 'Target market checked', riskRating: 'MEDIUM' },
      },
      signer: { id: a.leadId, name: 'LEAD_REVIEWER user', role: 'LEAD_REVIEWER', fcaRef: 'ABC12345' },
      signedOffAt: body.signedOffAt,
    });
    await expectApprovedUnchanged(a.firm.key, id, body);

    for (const [patch, cred] of [
      [{ useCase: 'edit' }, { token: a.admin }],
      [{ status: 'DRAFT' }, { token: a.admin }],
      [{ status: 'APPROVED' }, { token: a.lead }],
      [{ outcomes: { priceAndValue: { riskRating: 'HIGH' } } }, { key: a.firm.key }],
    ] as const) {
      const response = await update(id, patch, cred);
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('CONFLICT');
    }
    await expectApprovedUnchanged(a.firm.key, id, body);
  });

  it('a FIRM_ADMIN approves an assessment without a model (no gate index involved)', async () => {
    const id = await pending(a.firm);
    const approved = await update(id, { status: 'APPROVED' }, { token: a.admin });
    expect(approved.status).toBe(200);
    expect(approved.body.signedOffBy).toMatchObject({ type: 'USER', role: 'FIRM_ADMIN' });
    const record = await api('GET', `/v1/ledger/records/${approved.body.ledgerRecordId}`, {
      key: a.firm.key,
    });
    expect(record.body.documentMetadata).toMatchObject({
      assessmentId: id,
      modelProvider: null,
      modelVersion: null,
    });
  });

  it('concurrent approvals of one assessment write exactly one IMPACT_ASSESSMENT_APPROVED', async () => {
    const id = await pending(a.firm, { modelProvider: 'race-ai', modelVersion: '1' });
    const responses = await Promise.all([
      update(id, { status: 'APPROVED' }, { token: a.lead }),
      update(id, { status: 'APPROVED' }, { token: a.admin }),
      update(id, { status: 'APPROVED' }, { token: a.lead }),
    ]);
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(2);
    const records = await api('GET', '/v1/ledger/records?eventType=IMPACT_ASSESSMENT_APPROVED&pageSize=100', {
      key: a.firm.key,
    });
    const mine = records.body.data.filter((r: any) => r.documentMetadata.assessmentId === id);
    expect(mine).toHaveLength(1);
    const stored = await api('GET', `/v1/impact-assessments/${id}`, { key: a.firm.key });
    expect(stored.body.ledgerRecordId).toBe(mine[0].id);
  });

  it('supersede: only APPROVED (409 otherwise); SUPERSEDED is immutable; a certificateId written meanwhile stays', async () => {
    const draft = await create(a.firm, { useCase: 'u', description: 'd' });
    expect((await supersede(draft.body.id, { key: a.firm.key })).status).toBe(409);
    const id = await pending(a.firm);
    expect((await supersede(id, { key: a.firm.key })).status).toBe(409);
    const approved = await update(id, { status: 'APPROVED' }, { token: a.admin });
    // The certificates flow fills certificateId on the item after approval.
    const deps = stackDeps();
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tables.main,
        Key: keys.impactAssessment(a.firm.firmId, id),
        UpdateExpression: 'SET certificateId = :c',
        ExpressionAttributeValues: { ':c': 'cert_test' },
      }),
    );
    const superseded = await supersede(id, { token: a.reviewer });
    expect(superseded.status).toBe(200);
    expect(superseded.body).toMatchObject({
      status: 'SUPERSEDED',
      certificateId: 'cert_test',
      ledgerRecordId: approved.body.ledgerRecordId,
      signedOffAt: approved.body.signedOffAt,
    });
    expect((await api('GET', `/v1/impact-assessments/${id}`, { key: a.firm.key })).body).toEqual(
      superseded.body,
    );
    expect((await supersede(id, { key: a.firm.key })).status).toBe(409);
    expect((await update(id, { useCase: 'x' }, { token: a.admin })).status).toBe(409);
    expect((await update(id, { status: 'APPROVED' }, { token: a.admin })).status).toBe(409);
  });
});

/** Uploads a small document through the presigned URL, as a client would. */
const upload = (firm: TestFirm): Promise<string> =>
  uploadDocument({ key: firm.key }, new Uint8Array(randomBytes(500)));

describe('impact assessments and the job-submission gate', () => {
  const model = { provider: 'gate-ai', version: '4.2' };
  let a: Actors;
  beforeAll(async () => {
    a = await actorsOf(await createFirm('BOTH'));
  });

  /** Submits a job declaring the model with a fresh upload; returns the status (and error code). */
  async function submit(declared: { provider: string; version: string } = model): Promise<string> {
    const documentKey = await upload(a.firm);
    const response = await api('POST', '/v1/review/jobs', {
      key: a.firm.key,
      body: {
        documentKey,
        documentType: 'SUITABILITY_REPORT',
        clientReference: 'CLI-1',
        documentReference: 'DOC-1',
        factFindSummary: {},
        aiContext: { model: declared },
      },
    });
    return response.status === 201 ? '201' : `${response.status} ${response.body.error.code}`;
  }

  it('409 until an assessment of the model is approved, 201 while it is, 409 again once superseded', async () => {
    expect(await submit()).toBe('409 IMPACT_ASSESSMENT_REQUIRED');
    const id = await pending(a.firm, { modelProvider: model.provider, modelVersion: model.version });
    // Pending sign-off, or approved for another version of the model, does not count.
    expect(await submit()).toBe('409 IMPACT_ASSESSMENT_REQUIRED');
    const otherVersion = await pending(a.firm, { modelProvider: model.provider, modelVersion: '4.1' });
    expect((await update(otherVersion, { status: 'APPROVED' }, { token: a.lead })).status).toBe(200);
    expect(await submit()).toBe('409 IMPACT_ASSESSMENT_REQUIRED');

    expect((await update(id, { status: 'APPROVED' }, { token: a.lead })).status).toBe(200);
    expect(await submit()).toBe('201');
    expect((await supersede(id, { key: a.firm.key })).status).toBe(200);
    expect(await submit()).toBe('409 IMPACT_ASSESSMENT_REQUIRED');
  });

  it('two approved assessments of one model: the gate stays open until both are superseded, in either order', async () => {
    for (const order of ['older first', 'newer first']) {
      const m = { modelProvider: model.provider, modelVersion: `${model.version}-${order.split(' ')[0]}` };
      const older = await pending(a.firm, m);
      const newer = await pending(a.firm, m);
      expect((await update(older, { status: 'APPROVED' }, { token: a.admin })).status).toBe(200);
      expect((await update(newer, { status: 'APPROVED' }, { token: a.lead })).status).toBe(200);
      const [first, second] = order === 'older first' ? [older, newer] : [newer, older];
      const index = async () => {
        const { findApprovedAssessment } = await import('../../shared/store/impact-assessment-store.js');
        return findApprovedAssessment(stackDeps(), a.firm.firmId, m.modelProvider, m.modelVersion);
      };
      expect(await index()).toEqual({ assessmentId: newer });
      expect((await supersede(first, { key: a.firm.key })).status).toBe(200);
      expect(await index()).toEqual({ assessmentId: second });
      expect(await submit({ provider: m.modelProvider, version: m.modelVersion })).toBe('201');
      expect((await supersede(second, { key: a.firm.key })).status).toBe(200);
      expect(await index()).toBeNull();
      expect(await submit({ provider: m.modelProvider, version: m.modelVersion })).toBe(
        '409 IMPACT_ASSESSMENT_REQUIRED',
      );
    }
  });
});
