import { createHash, randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Role } from '../../shared/domain/auth/principal.js';
import { recordDecision } from '../../shared/services/review/completion.js';
import { sweepReviewJobs } from '../../shared/services/review/sla-sweep.js';
import { keys } from '../../shared/store/keys.js';
import { api, createFirm, seedUser, stackDeps, type TestFirm, tokenFor, uploadDocument } from './helpers.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

interface Reviewer {
  id: string;
  email: string;
  role: Role;
  token: string;
}

interface Job {
  id: string;
  status: string;
  assignedReviewerId: string | null;
  [field: string]: unknown;
}

let seq = 0;

/**
 * A signed-in reviewer: seeded, then their first request (GET /v1/review/queue) activates them, which also
 * lets routing give them waiting work.
 */
async function reviewer(
  firm: TestFirm,
  role: Role = 'REVIEWER',
  specialist = false,
): Promise<Reviewer & { queue: Job[] }> {
  seq += 1;
  const email = `${role.toLowerCase()}-${seq}-${Date.now().toString(36)}@firm.test`;
  const user = await seedUser(firm.firmId, role, email);
  if (specialist) {
    const deps = stackDeps();
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tables.main,
        Key: keys.user(firm.firmId, user.id),
        UpdateExpression: 'SET specialistVulnerability = :t',
        ExpressionAttributeValues: { ':t': true },
      }),
    );
  }
  const token = await tokenFor(firm.firmId, email);
  const queue = await api('GET', '/v1/review/queue', { token });
  expect(queue.status).toBe(200);
  return { id: user.id, email, role, token, queue: queue.body.data };
}

/** Upload with a real PUT to the presigned URL, then submit. */
async function submitJob(
  firm: TestFirm,
  extra: Record<string, unknown> = {},
  credential: { key?: string; token?: string } = { key: firm.key },
): Promise<Job & { bytes: Uint8Array }> {
  const bytes = new Uint8Array(randomBytes(1_500));
  const documentKey = await uploadDocument(credential, bytes);
  const response = await api('POST', '/v1/review/jobs', {
    ...credential,
    body: {
      documentKey,
      documentType: 'SUITABILITY_REPORT',
      clientReference: 'CLI-1',
      documentReference: `DOC-${Math.random().toString(36).slice(2)}`,
      factFindSummary: { age: 60 },
      ...extra,
    },
  });
  expect(response.status).toBe(201);
  return { ...response.body, bytes };
}

const getJob = async (firm: TestFirm, id: string): Promise<Job> =>
  (await api('GET', `/v1/review/jobs/${id}`, { key: firm.key })).body;

const move = (r: { token: string }, id: string, action: string, body?: unknown) =>
  api('POST', `/v1/review/jobs/${id}/${action}`, { token: r.token, ...(body ? { body } : {}) });

interface RecordView {
  id: string;
  sequenceNumber: number;
  eventType: string;
  documentHash: string;
  reviewJobId: string | null;
  actorId: string;
  documentMetadata: Record<string, unknown>;
  timestamp: string;
}

async function firmRecords(firm: TestFirm): Promise<RecordView[]> {
  const all: RecordView[] = [];
  for (let page = 1; ; page++) {
    const { body } = await api('GET', `/v1/ledger/records?pageSize=100&page=${page}`, { key: firm.key });
    all.push(...body.data);
    if (page >= body.pagination.totalPages) break;
  }
  return all.sort((a, b) => a.sequenceNumber - b.sequenceNumber);
}

const jobRecords = async (firm: TestFirm, jobId: string) =>
  (await firmRecords(firm)).filter((r) => r.reviewJobId === jobId);

async function userOf(firm: TestFirm, id: string) {
  const { body } = await api('GET', '/v1/firm/me/users', { key: firm.key });
  return (body.data ?? body).find((u: { id: string }) => u.id === id);
}

async function checklistOf(firm: TestFirm): Promise<string[]> {
  const { body } = await api('GET', '/v1/firm/me/document-types', { key: firm.key });
  const types = (body.data ?? body) as { slug: string; checklistItems: string[] }[];
  return types.find((t) => t.slug === 'SUITABILITY_REPORT')!.checklistItems;
}

/** Waits (bounded) for a condition the background sweep brings about; fails the test if it never holds. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 150; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

describe('review workflow: happy path and outcomes', () => {
  let firm: TestFirm;
  let r: Reviewer;
  let checklist: string[];
  beforeAll(async () => {
    firm = await createFirm('BOTH');
    r = await reviewer(firm);
    checklist = await checklistOf(firm);
  });

  it('upload, submit, routed, start, complete: exact ledger order, hash of the bytes, reviewer freed', async () => {
    const job = await submitJob(firm);
    expect(job).toMatchObject({ status: 'ASSIGNED', assignedReviewerId: r.id });
    expect(job.assignedAt).toEqual(expect.any(String));
    const queue = await api('GET', '/v1/review/queue', { token: r.token });
    expect(queue.body.data.map((j: Job) => j.id)).toEqual([job.id]);

    const started = await api('POST', `/v1/principal/jobs/${job.id}/start`, { token: r.token });
    expect(started.status).toBe(200);
    expect(started.body.status).toBe('IN_REVIEW');

    const answers = checklist.map((item) => ({ item, answer: 'YES' }));
    const done = await move(r, job.id, 'complete', {
      outcome: 'APPROVED',
      checklist: answers,
      annotations: [{ page: 2, text: 'Charges table checked' }, { text: 'Risk profile consistent' }],
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'APPROVED',
      outcome: 'APPROVED',
      outcomeReason: null,
      modifications: null,
      assignedReviewerId: r.id,
      annotationCount: 2,
      slaBreachedAt: null,
    });
    expect(done.body.completedAt).toEqual(expect.any(String));

    const records = await jobRecords(firm, job.id);
    expect(records.map((x) => x.eventType)).toEqual([
      'DOCUMENT_SUBMITTED',
      'REVIEW_STARTED',
      'REVIEW_COMPLETED',
      'DOCUMENT_APPROVED',
    ]);
    expect(records[0]!.documentHash).toBe(sha256(job.bytes));
    expect(records.every((x) => x.documentHash === sha256(job.bytes))).toBe(true);
    expect(done.body.ledgerRecordId).toBe(records[3]!.id);
    expect(records[2]!.documentMetadata).toMatchObject({ checklist: answers, annotationCount: 2 });
    expect(records[2]!.actorId).toBe(r.id);
    expect(records[3]!.actorId).toBe(r.id);
    expect((await userOf(firm, r.id)).activeJobId).toBeNull();

    const detail = await getJob(firm, job.id);
    expect(detail.reviewActions).toEqual([
      { action: 'ASSIGNED', at: expect.any(String), role: 'SYSTEM', reviewer: 'Reviewer 1' },
      { action: 'STARTED', at: expect.any(String), role: 'REVIEWER', reviewer: 'Reviewer 1' },
      { action: 'COMPLETED', at: expect.any(String), role: 'REVIEWER', reviewer: 'Reviewer 1' },
    ]);
    const text = JSON.stringify(detail.reviewActions);
    expect(text).not.toContain(r.id);
    expect(text).not.toContain(r.email);
    expect(detail).not.toHaveProperty('actionLog');
    expect(detail).not.toHaveProperty('pendingCompletion');
  });

  it('APPROVED_WITH_MODIFICATIONS keeps modifications verbatim: DOCUMENT_MODIFIED, status MODIFIED', async () => {
    const job = await submitJob(firm);
    expect((await move(r, job.id, 'start')).status).toBe(200);
    const modifications = '  Replace paragraph 3 with:\n\t"Fees are 0.5% a year."  ';
    const done = await move(r, job.id, 'complete', { outcome: 'APPROVED_WITH_MODIFICATIONS', modifications });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'MODIFIED',
      outcome: 'APPROVED_WITH_MODIFICATIONS',
      modifications,
    });
    const records = await jobRecords(firm, job.id);
    expect(records.map((x) => x.eventType).slice(-2)).toEqual(['REVIEW_COMPLETED', 'DOCUMENT_MODIFIED']);
    expect(records.at(-1)!.documentMetadata.modifications).toBe(modifications);
    expect(done.body.ledgerRecordId).toBe(records.at(-1)!.id);
  });

  it('REJECTED with a reason: DOCUMENT_REJECTED, status REJECTED', async () => {
    const job = await submitJob(firm);
    await move(r, job.id, 'start');
    const done = await move(r, job.id, 'complete', { outcome: 'REJECTED', outcomeReason: 'Unsuitable' });
    expect(done.body).toMatchObject({ status: 'REJECTED', outcome: 'REJECTED', outcomeReason: 'Unsuitable' });
    const records = await jobRecords(firm, job.id);
    expect(records.map((x) => x.eventType).slice(-2)).toEqual(['REVIEW_COMPLETED', 'DOCUMENT_REJECTED']);
  });

  it('400 for a missing modification or reason and a bad checklist; nothing changes', async () => {
    const job = await submitJob(firm);
    await move(r, job.id, 'start');
    const bad = [
      { outcome: 'APPROVED_WITH_MODIFICATIONS' },
      { outcome: 'APPROVED_WITH_MODIFICATIONS', modifications: '   ' },
      { outcome: 'REJECTED' },
      { outcome: 'APPROVED', modifications: 'x' },
      { outcome: 'MAYBE' },
      { outcome: 'APPROVED', checklist: [{ item: 'Not on the checklist', answer: 'YES' }] },
      { outcome: 'APPROVED', checklist: checklist.slice(1).map((item) => ({ item, answer: 'YES' })) },
      {
        outcome: 'APPROVED',
        checklist: [...checklist, checklist[0]].map((item) => ({ item, answer: 'NO' })),
      },
      { outcome: 'APPROVED', checklist: checklist.map((item) => ({ item, answer: 'PERHAPS' })) },
    ];
    for (const body of bad) {
      const response = await move(r, job.id, 'complete', body);
      expect([response.status, body]).toEqual([400, body]);
    }
    expect((await getJob(firm, job.id)).status).toBe('IN_REVIEW');
    expect((await jobRecords(firm, job.id)).map((x) => x.eventType)).toEqual([
      'DOCUMENT_SUBMITTED',
      'REVIEW_STARTED',
    ]);
    // Clean up: the reviewer must be free for the other tests of this firm.
    expect((await move(r, job.id, 'complete', { outcome: 'APPROVED' })).status).toBe(200);
  });
});

describe('review workflow: who may act, illegal moves, senior sign-off, cancel, tenancy', () => {
  let firm: TestFirm;
  let other: TestFirm;
  let r: Reviewer;
  beforeAll(async () => {
    [firm, other] = await Promise.all([createFirm('BOTH'), createFirm('BOTH')]);
    r = await reviewer(firm);
  });

  it('only the assigned reviewer acts (403), illegal moves are 409, API keys cannot review (403)', async () => {
    const job = await submitJob(firm);
    expect(job.assignedReviewerId).toBe(r.id);
    const stranger = await reviewer(firm); // free, but the job is not theirs
    expect((await move(stranger, job.id, 'start')).status).toBe(403);
    expect((await api('POST', `/v1/review/jobs/${job.id}/start`, { key: firm.key })).status).toBe(403);
    expect((await move(r, job.id, 'complete', { outcome: 'APPROVED' })).status).toBe(409); // not started
    expect((await move(r, job.id, 'start')).status).toBe(200);
    expect((await move(r, job.id, 'start')).status).toBe(409);
    expect((await move(stranger, job.id, 'complete', { outcome: 'APPROVED' })).status).toBe(403);
    expect((await move(stranger, job.id, 'escalate', { reason: 'x' })).status).toBe(403);
    expect((await move(r, job.id, 'escalate', {})).status).toBe(400);
    expect((await move(r, job.id, 'complete', { outcome: 'APPROVED' })).status).toBe(200);
    for (const [action, body] of [
      ['start', undefined],
      ['complete', { outcome: 'APPROVED' }],
      ['escalate', { reason: 'late' }],
      ['cancel', undefined],
    ] as const) {
      const response = await move(r, job.id, action, body);
      expect([action, response.status, response.body.error.code]).toEqual([action, 409, 'CONFLICT']);
    }
    expect((await api('POST', `/v1/review/jobs/${job.id}/cancel`, { key: firm.key })).status).toBe(409);
    await api('DELETE', `/v1/firm/me/users/${stranger.id}`, { key: firm.key });
  });

  it('senior sign-off: a REVIEWER cannot complete (403) but escalates; a LEAD_REVIEWER picks it up', async () => {
    const job = await submitJob(firm, { requiresSeniorSignOff: true });
    // The only senior in the firm (the onboarding admin) never signed in: the free REVIEWER gets it.
    expect(job.assignedReviewerId).toBe(r.id);
    expect((await move(r, job.id, 'start')).status).toBe(200);
    expect((await move(r, job.id, 'complete', { outcome: 'APPROVED' })).status).toBe(403);
    const escalated = await move(r, job.id, 'escalate', { reason: 'Needs senior sign-off' });
    expect(escalated.body).toMatchObject({ status: 'ESCALATED', assignedReviewerId: null });
    expect((await userOf(firm, r.id)).activeJobId).toBeNull();
    expect((await move(r, job.id, 'start')).status).toBe(403); // REVIEWERs cannot take escalated jobs

    const lead = await reviewer(firm, 'LEAD_REVIEWER');
    expect(lead.queue.map((j) => j.id)).toContain(job.id);
    const started = await move(lead, job.id, 'start');
    expect(started.body).toMatchObject({ status: 'IN_REVIEW', assignedReviewerId: lead.id });
    const done = await move(lead, job.id, 'complete', { outcome: 'APPROVED' });
    expect(done.body).toMatchObject({ status: 'APPROVED', assignedReviewerId: lead.id });
    expect((await jobRecords(firm, job.id)).map((x) => x.eventType)).toEqual([
      'DOCUMENT_SUBMITTED',
      'REVIEW_STARTED',
      'JOB_ESCALATED',
      'REVIEW_STARTED',
      'REVIEW_COMPLETED',
      'DOCUMENT_APPROVED',
    ]);
    const actions = (await getJob(firm, job.id)).reviewActions as { action: string; reviewer: string }[];
    expect(actions.map((a) => `${a.action}:${a.reviewer}`)).toEqual([
      'ASSIGNED:Reviewer 1',
      'STARTED:Reviewer 1',
      'ESCALATED:Reviewer 1',
      'STARTED:Reviewer 2',
      'COMPLETED:Reviewer 2',
    ]);
    // The lead is free again; keep them unavailable for the rest of this firm's tests.
    await api('DELETE', `/v1/firm/me/users/${lead.id}`, { key: firm.key });
  });

  it('cancel: API key or the submitting user; not another user (403); frees the reviewer', async () => {
    const submitter = await reviewer(firm, 'LEAD_REVIEWER');
    // The lead got nothing (no work waiting). Their own job goes to r: never to its submitter (four eyes).
    const own = await submitJob(firm, {}, { token: submitter.token });
    const held = own.assignedReviewerId;
    expect(held).toBe(r.id);
    expect((await move(r, own.id, 'cancel')).status).toBe(403); // r did not submit it
    const cancelled = await move(submitter, own.id, 'cancel');
    expect(cancelled.body.status).toBe('CANCELLED');
    expect((await userOf(firm, held!)).activeJobId).toBeNull();

    const byKey = await submitJob(firm);
    const response = await api('POST', `/v1/review/jobs/${byKey.id}/cancel`, { key: firm.key });
    expect(response.body.status).toBe('CANCELLED');
    expect((await move(submitter, byKey.id, 'cancel')).status).toBe(409);
    const records = await jobRecords(firm, byKey.id);
    expect(records.map((x) => x.eventType)).toEqual(['DOCUMENT_SUBMITTED']);
    await api('DELETE', `/v1/firm/me/users/${submitter.id}`, { key: firm.key });
  });

  it("another firm's job is 404 for every move", async () => {
    const job = await submitJob(firm);
    const outsider = await reviewer(other, 'FIRM_ADMIN');
    for (const [action, body] of [
      ['start', undefined],
      ['complete', { outcome: 'APPROVED' }],
      ['escalate', { reason: 'x' }],
      ['cancel', undefined],
    ] as const)
      expect((await move(outsider, job.id, action, body)).status).toBe(404);
    expect((await api('POST', `/v1/review/jobs/${job.id}/cancel`, { key: other.key })).status).toBe(404);
    expect((await api('GET', `/v1/review/jobs/${job.id}`, { key: other.key })).status).toBe(404);
    expect((await getJob(firm, job.id)).status).toBe('ASSIGNED');
  });
});

describe('review workflow: routing', () => {
  it('waits QUEUED when nobody is free; assigned when a reviewer signs in', async () => {
    const firm = await createFirm('BOTH');
    const job = await submitJob(firm);
    expect(job).toMatchObject({ status: 'QUEUED', assignedReviewerId: null });
    const r = await reviewer(firm);
    expect(r.queue.map((j) => j.id)).toEqual([job.id]);
    expect(await getJob(firm, job.id)).toMatchObject({ status: 'ASSIGNED', assignedReviewerId: r.id });
    expect((await userOf(firm, r.id)).activeJobId).toBe(job.id);
  });

  it('an unavailable reviewer gets no work; becoming available routes waiting work to them', async () => {
    const firm = await createFirm('BOTH');
    const r = await reviewer(firm);
    const off = await api('POST', '/v1/review/availability', {
      token: r.token,
      body: { isAvailable: false },
    });
    expect(off.body).toEqual({ isAvailable: false, activeJobId: null });
    const job = await submitJob(firm);
    expect(job.status).toBe('QUEUED');
    expect((await api('GET', '/v1/review/queue', { token: r.token })).body.data).toEqual([]);
    const on = await api('POST', '/v1/review/availability', { token: r.token, body: { isAvailable: true } });
    expect(on.body).toEqual({ isAvailable: true, activeJobId: job.id });
    expect(
      (await api('POST', '/v1/review/availability', { key: firm.key, body: { isAvailable: true } })).status,
    ).toBe(403);
  });

  it('URGENT before STANDARD, then oldest first, as the reviewer frees up', async () => {
    const firm = await createFirm('BOTH');
    const r = await reviewer(firm);
    const first = await submitJob(firm);
    expect(first.assignedReviewerId).toBe(r.id);
    const s1 = await submitJob(firm);
    const s2 = await submitJob(firm);
    const u1 = await submitJob(firm, { priority: 'URGENT' });
    expect([s1.status, s2.status, u1.status]).toEqual(['QUEUED', 'QUEUED', 'QUEUED']);
    const order: string[] = [];
    let current = first.id;
    for (let i = 0; i < 3; i++) {
      await move(r, current, 'start');
      await move(r, current, 'complete', { outcome: 'APPROVED' });
      const next = (await userOf(firm, r.id)).activeJobId as string;
      order.push(next);
      current = next;
    }
    expect(order).toEqual([u1.id, s1.id, s2.id]);
  });

  it('vulnerability-flagged jobs only go to specialists, LEAD_REVIEWERs or FIRM_ADMINs', async () => {
    const firm = await createFirm('BOTH');
    const plain = await reviewer(firm);
    const flagged = await submitJob(firm, { vulnerabilityFlags: ['health'] });
    expect(flagged).toMatchObject({ status: 'QUEUED', requiresSeniorSignOff: true });
    const ordinary = await submitJob(firm);
    expect(ordinary.assignedReviewerId).toBe(plain.id);
    const specialist = await reviewer(firm, 'REVIEWER', true);
    expect(specialist.queue.map((j) => j.id)).toEqual([flagged.id]);
    expect((await getJob(firm, flagged.id)).assignedReviewerId).toBe(specialist.id);
  });

  it('deactivating a reviewer re-routes their active job to a free reviewer', async () => {
    const firm = await createFirm('BOTH');
    const first = await reviewer(firm);
    const job = await submitJob(firm);
    expect(job.assignedReviewerId).toBe(first.id);
    await move(first, job.id, 'start');
    const second = await reviewer(firm);
    expect(second.queue).toEqual([]);
    expect((await api('DELETE', `/v1/firm/me/users/${first.id}`, { key: firm.key })).status).toBe(204);
    const after = await getJob(firm, job.id);
    expect(after).toMatchObject({ status: 'ASSIGNED', assignedReviewerId: second.id });
    expect((await userOf(firm, first.id)).activeJobId).toBeNull();
    expect((await userOf(firm, second.id)).activeJobId).toBe(job.id);
    expect(
      (after.reviewActions as { action: string; reviewer: string }[]).map((a) => `${a.action}:${a.reviewer}`),
    ).toEqual(['ASSIGNED:Reviewer 1', 'STARTED:Reviewer 1', 'REQUEUED:Reviewer 1', 'ASSIGNED:Reviewer 2']);
  });
});

describe('review workflow: four eyes (issue 12 part 7)', () => {
  it('the submitter is never routed their job and may not start, complete or escalate it', async () => {
    const firm = await createFirm('BOTH');
    const lead = await reviewer(firm, 'LEAD_REVIEWER');
    const refusedAsSubmitter = async (action: string, body?: unknown) => {
      const response = await move(lead, job.id, action, body);
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('SUBMITTER_CANNOT_REVIEW');
    };

    // The submitter is the only free reviewer: the job waits, unassigned, and stays out of their queue.
    const job = await submitJob(firm, {}, { token: lead.token });
    expect(job).toMatchObject({ status: 'QUEUED', assignedReviewerId: null });
    expect((await api('GET', '/v1/review/queue', { token: lead.token })).body.data).toEqual([]);
    expect(await getJob(firm, job.id)).toMatchObject({ status: 'QUEUED', assignedReviewerId: null });

    // Another reviewer is routed it; the submitter may not act on it in any state.
    const r = await reviewer(firm);
    expect(r.queue.map((j) => j.id)).toEqual([job.id]);
    await refusedAsSubmitter('start');
    expect((await move(r, job.id, 'start')).status).toBe(200);
    await refusedAsSubmitter('complete', { outcome: 'APPROVED' });
    await refusedAsSubmitter('escalate', { reason: 'Sign it off myself' });

    // Re-routing after the reviewer's deactivation does not hand it to the submitter either.
    expect((await api('DELETE', `/v1/firm/me/users/${r.id}`, { key: firm.key })).status).toBe(204);
    expect(await getJob(firm, job.id)).toMatchObject({ status: 'QUEUED', assignedReviewerId: null });

    // Escalated: the submitting senior neither sees it in their queue nor may start it; another senior may.
    const r2 = await reviewer(firm);
    expect((await move(r2, job.id, 'start')).status).toBe(200);
    expect((await move(r2, job.id, 'escalate', { reason: 'Needs sign-off' })).status).toBe(200);
    expect((await api('GET', '/v1/review/queue', { token: lead.token })).body.data).toEqual([]);
    await refusedAsSubmitter('start');
    const lead2 = await reviewer(firm, 'LEAD_REVIEWER');
    expect(lead2.queue.map((j) => j.id)).toEqual([job.id]);
    expect((await move(lead2, job.id, 'start')).status).toBe(200);
    const done = await move(lead2, job.id, 'complete', { outcome: 'APPROVED' });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('APPROVED');
    const records = await jobRecords(firm, job.id);
    expect(records.every((x) => x.eventType === 'DOCUMENT_SUBMITTED' || x.actorId !== lead.id)).toBe(true);
    // The submitter may still cancel their own submissions (not a review act).
    const another = await submitJob(firm, {}, { token: lead.token });
    expect(another.assignedReviewerId).not.toBe(lead.id);
    expect((await move(lead, another.id, 'cancel')).body.status).toBe('CANCELLED');
  });
});

describe('review workflow: concurrency', () => {
  it('two seniors racing to start one escalated job: exactly one wins', async () => {
    const firm = await createFirm('BOTH');
    const r = await reviewer(firm);
    const job = await submitJob(firm);
    await move(r, job.id, 'escalate', { reason: 'Complex case' });
    const [a, b] = await Promise.all([reviewer(firm, 'LEAD_REVIEWER'), reviewer(firm, 'FIRM_ADMIN')]);
    const results = await Promise.all([move(a, job.id, 'start'), move(b, job.id, 'start')]);
    expect(results.map((x) => x.status).sort()).toEqual([200, 409]);
    const winner = results[0]!.status === 200 ? a : b;
    const loser = winner === a ? b : a;
    expect(await getJob(firm, job.id)).toMatchObject({ status: 'IN_REVIEW', assignedReviewerId: winner.id });
    expect((await userOf(firm, winner.id)).activeJobId).toBe(job.id);
    expect((await userOf(firm, loser.id)).activeJobId).toBeNull();
    const started = (await jobRecords(firm, job.id)).filter((x) => x.eventType === 'REVIEW_STARTED');
    expect(started).toHaveLength(1); // the original reviewer escalated without starting
  });

  it('the same reviewer completing twice at once: one decision, one outcome record', async () => {
    const firm = await createFirm('BOTH');
    const r = await reviewer(firm);
    const job = await submitJob(firm);
    await move(r, job.id, 'start');
    const results = await Promise.all([
      move(r, job.id, 'complete', { outcome: 'APPROVED' }),
      move(r, job.id, 'complete', { outcome: 'REJECTED', outcomeReason: 'No' }),
    ]);
    expect(results.map((x) => x.status).sort()).toEqual([200, 409]);
    const types = (await jobRecords(firm, job.id)).map((x) => x.eventType);
    expect(types.filter((t) => t === 'REVIEW_COMPLETED')).toHaveLength(1);
    expect(types.filter((t) => t.startsWith('DOCUMENT_') && t !== 'DOCUMENT_SUBMITTED')).toHaveLength(1);
  });

  it('20 parallel submissions: all created, gapless sequence, no reviewer given two jobs', async () => {
    const firm = await createFirm('BOTH');
    const team = await Promise.all([reviewer(firm), reviewer(firm), reviewer(firm)]);
    const jobs = await Promise.all(Array.from({ length: 20 }, () => submitJob(firm)));
    expect(new Set(jobs.map((j) => j.id)).size).toBe(20);
    const records = await firmRecords(firm);
    expect(records.map((x) => x.sequenceNumber)).toEqual(records.map((_, i) => i + 1));
    expect(records.filter((x) => x.eventType === 'DOCUMENT_SUBMITTED')).toHaveLength(20);
    const { body } = await api('GET', '/v1/review/jobs?pageSize=100', { key: firm.key });
    const assigned = (body.data as Job[]).filter((j) => j.status === 'ASSIGNED');
    expect(assigned).toHaveLength(3);
    expect(new Set(assigned.map((j) => j.assignedReviewerId))).toEqual(new Set(team.map((t) => t.id)));
    expect((body.data as Job[]).filter((j) => j.status === 'QUEUED')).toHaveLength(17);
    for (const member of team) {
      const mine = assigned.find((j) => j.assignedReviewerId === member.id)!;
      expect((await userOf(firm, member.id)).activeJobId).toBe(mine.id);
    }
  });
});

describe('review workflow: SLA sweep and completion repair', () => {
  it('concurrent sweeps record exactly one SLA_BREACHED per overdue undecided job', async () => {
    const firm = await createFirm('BOTH');
    const r = await reviewer(firm);
    const deps = stackDeps();
    const inReview = await submitJob(firm); // assigned to r
    await move(r, inReview.id, 'start');
    const queued = await submitJob(firm);
    const decided = await submitJob(firm);
    const onTime = await submitJob(firm);
    const past = new Date(Date.now() - 60_000).toISOString();
    const overdue = async (id: string) =>
      deps.db.send(
        new UpdateCommand({
          TableName: deps.tables.main,
          Key: keys.job(firm.firmId, id),
          // Also (re)enters the sweep's index: for the decided job that is a stale entry the sweep must ignore.
          UpdateExpression: 'SET slaDeadline = :d, sweepKind = :sla, sweepDue = :due',
          ExpressionAttributeValues: { ':d': past, ':sla': 'SLA', ':due': `${past}#${firm.firmId}#${id}` },
        }),
      );
    await move(r, inReview.id, 'complete', { outcome: 'APPROVED' }); // r now holds `queued`
    await move(r, queued.id, 'start');
    await move(r, queued.id, 'complete', { outcome: 'APPROVED' }); // r now holds `decided`
    await move(r, decided.id, 'start');
    await move(r, decided.id, 'complete', { outcome: 'APPROVED' }); // r now holds `onTime`
    const open1 = await submitJob(firm);
    const open2 = await submitJob(firm, { priority: 'URGENT' });
    await Promise.all([open1.id, open2.id, decided.id].map(overdue));

    const sweeps = await Promise.all(Array.from({ length: 4 }, () => sweepReviewJobs(stackDeps(), 30_000)));
    expect(sweeps.reduce((n, s) => n + s.breached, 0)).toBeLessThanOrEqual(2);
    await eventually(
      async () => Promise.all([getJob(firm, open1.id), getJob(firm, open2.id)]),
      (jobs) => jobs.every((j) => j.slaBreachedAt !== null),
      'both overdue jobs to be stamped',
    );
    await Promise.all(Array.from({ length: 3 }, () => sweepReviewJobs(stackDeps(), 30_000)));
    const breaches = (await firmRecords(firm)).filter((x) => x.eventType === 'SLA_BREACHED');
    expect(breaches.map((x) => x.reviewJobId).sort()).toEqual([open1.id, open2.id].sort());
    expect(breaches.every((x) => x.actorId === 'system:review-sla-sweep')).toBe(true);
    expect((await getJob(firm, decided.id)).slaBreachedAt).toBeNull();
    expect((await getJob(firm, onTime.id)).slaBreachedAt).toBeNull();
    const stamped = await getJob(firm, open1.id);
    expect(stamped.slaBreachedAt).toBe(breaches.find((x) => x.reviewJobId === open1.id)!.timestamp);
    expect(stamped.status).toBe('QUEUED'); // a breach changes no status
    expect((stamped.reviewActions as { action: string }[]).at(-1)!.action).toBe('SLA_BREACHED');
  });

  it('a completion interrupted after REVIEW_COMPLETED is finished by the sweep, exactly once', async () => {
    const firm = await createFirm('BOTH');
    const r = await reviewer(firm);
    const job = await submitJob(firm);
    await move(r, job.id, 'start');
    // Step 1 only, as if the process died before writing the outcome record.
    await recordDecision(
      stackDeps(),
      {
        kind: 'user',
        firmId: firm.firmId,
        userId: r.id,
        name: 'REVIEWER user',
        email: r.email,
        role: 'REVIEWER',
        fcaRef: 'ABC12345',
      },
      job.id,
      { outcome: 'REJECTED', outcomeReason: 'Charges missing' },
    );
    expect((await getJob(firm, job.id)).status).toBe('IN_REVIEW');
    // Another decision on it is refused while it is pending.
    expect((await move(r, job.id, 'complete', { outcome: 'APPROVED' })).status).toBe(409);
    const done = await eventually(
      () => getJob(firm, job.id),
      (j) => j.status === 'REJECTED',
      'the sweep to finish the completion',
    );
    const records = await jobRecords(firm, job.id);
    expect(records.map((x) => x.eventType)).toEqual([
      'DOCUMENT_SUBMITTED',
      'REVIEW_STARTED',
      'REVIEW_COMPLETED',
      'DOCUMENT_REJECTED',
    ]);
    expect(done).toMatchObject({
      outcome: 'REJECTED',
      outcomeReason: 'Charges missing',
      ledgerRecordId: records[3]!.id,
    });
    expect(records[3]!.actorId).toBe(r.id);
    expect((await userOf(firm, r.id)).activeJobId).toBeNull();
  });
});
