import { randomBytes } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { recountFirmCounters } from '../../shared/services/firm-counters.js';
import { keys } from '../../shared/store/keys.js';
import { api, createFirm, seedUser, stackDeps, type TestFirm, tokenFor, uploadDocument } from './helpers.js';

const ULID_TAIL = (n: number) => n.toString().padStart(26, '0');

const create = (firm: TestFirm, body: Record<string, unknown>, cred?: { token: string }) =>
  api('POST', '/v1/incidents', { ...(cred ?? { key: firm.key }), body });
const update = (firm: TestFirm, id: string, body: unknown) =>
  api('POST', `/v1/incidents/${id}`, { key: firm.key, body });
const base = { title: 'Model hallucinated a fund', description: 'A draft named a fund that does not exist' };
const valid = { ...base, severity: 'HIGH', category: 'AI_MODEL' };

async function recordsOf(firm: TestFirm, eventType: string, incidentId: string) {
  const page = await api('GET', `/v1/ledger/records?eventType=${eventType}&pageSize=100`, { key: firm.key });
  return page.body.data.filter((r: any) => r.documentMetadata.incidentId === incidentId);
}
const recordCount = async (firm: TestFirm) =>
  (await api('GET', '/v1/firm/me/stats', { key: firm.key })).body.recordCount as number;

/** Submits a real review job (upload, then submission) and returns its id. */
async function submitJob(firm: TestFirm): Promise<string> {
  const documentKey = await uploadDocument({ key: firm.key }, new Uint8Array(randomBytes(300)), 'r.pdf');
  const job = await api('POST', '/v1/review/jobs', {
    key: firm.key,
    body: {
      documentKey,
      documentType: 'SUITABILITY_REPORT',
      clientReference: 'C',
      documentReference: 'D',
      factFindSummary: {},
    },
  });
  expect(job.status).toBe(201);
  return job.body.id;
}

describe('incidents: logging', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('BOTH');
  });

  it('logs an OPEN incident with INCIDENT_LOGGED carrying the snapshot', async () => {
    const jobId = await submitJob(firm);
    const recordId = `rec_${ULID_TAIL(7)}`;
    const lead = await seedUser(firm.firmId, 'LEAD_REVIEWER', `lead-inc-${firm.firmId}@firm.test`);
    const token = await tokenFor(firm.firmId, lead.email);
    const { status, body } = await create(
      firm,
      {
        ...valid,
        severity: 'CRITICAL',
        affectedReviewJobIds: [jobId],
        affectedLedgerRecordIds: [recordId],
        metadata: { ticket: 'OPS-12' },
      },
      { token },
    );
    expect(status).toBe(201);
    expect(body.id).toMatch(/^inc_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(body).toEqual({
      id: body.id,
      firmId: firm.firmId,
      ...base,
      severity: 'CRITICAL',
      category: 'AI_MODEL',
      status: 'OPEN',
      reportedAt: body.reportedAt,
      reportedById: lead.id,
      resolvedAt: null,
      rootCause: null,
      affectedReviewJobIds: [jobId],
      affectedLedgerRecordIds: [recordId],
      metadata: { ticket: 'OPS-12' },
      remediations: [],
      reportedBy: { id: lead.id, type: 'USER', name: lead.name, email: lead.email, role: 'LEAD_REVIEWER' },
    });
    const [record] = await recordsOf(firm, 'INCIDENT_LOGGED', body.id);
    expect(record).toMatchObject({
      actorId: lead.id,
      actorName: lead.name,
      documentHash: '',
      reviewJobId: null,
    });
    expect(record.documentMetadata).toEqual({
      incidentId: body.id,
      title: base.title,
      severity: 'CRITICAL',
      category: 'AI_MODEL',
      affectedReviewJobIds: [jobId],
      affectedLedgerRecordIds: [recordId],
      reportedAt: body.reportedAt,
    });
    expect((await api('GET', `/v1/incidents/${body.id}`, { key: firm.key })).body).toEqual(body);
  });

  it('an API key reports: reportedById null, reportedBy names the key; lists default to empty', async () => {
    const { status, body } = await create(firm, valid);
    expect(status).toBe(201);
    expect(body).toMatchObject({
      reportedById: null,
      reportedBy: { type: 'API_KEY', name: 'default', email: null, role: null },
      affectedReviewJobIds: [],
      affectedLedgerRecordIds: [],
      metadata: {},
    });
  });

  it.each([
    ['no title', { ...valid, title: undefined }, 'body.title'],
    ['no severity', { ...valid, severity: undefined }, 'body.severity'],
    ['an unknown severity', { ...valid, severity: 'SEVERE' }, 'body.severity'],
    ['an unknown category', { ...valid, category: 'WEATHER' }, 'body.category'],
    [
      'a malformed record id',
      { ...valid, affectedLedgerRecordIds: ['rec_1'] },
      'body.affectedLedgerRecordIds.0',
    ],
    [
      'a repeated record id',
      { ...valid, affectedLedgerRecordIds: [`rec_${ULID_TAIL(1)}`, `rec_${ULID_TAIL(1)}`] },
      'body.affectedLedgerRecordIds.1',
    ],
    [
      'an unknown job',
      { ...valid, affectedReviewJobIds: [`job_${ULID_TAIL(3)}`] },
      'body.affectedReviewJobIds.0',
    ],
    ['a client-set status', { ...valid, status: 'CLOSED' }, 'body'],
    ['a client-set resolvedAt', { ...valid, resolvedAt: new Date().toISOString() }, 'body'],
  ])('400 for %s; nothing stored, no record', async (_name, body, path) => {
    const before = await recordCount(firm);
    const count = (await api('GET', '/v1/incidents', { key: firm.key })).body.length;
    const response = await create(firm, body);
    expect(response.status).toBe(400);
    expect(response.body.error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
    expect(await recordCount(firm)).toBe(before);
    expect((await api('GET', '/v1/incidents', { key: firm.key })).body).toHaveLength(count);
  });

  it("400 for another firm's job, exactly as for an unknown one", async () => {
    const other = await createFirm('BOTH');
    const theirJob = await submitJob(other);
    const response = await create(firm, { ...valid, affectedReviewJobIds: [theirJob] });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([
      { path: 'body.affectedReviewJobIds.0', message: `No review job ${theirJob} in the firm` },
    ]);
  });

  it('401 without a credential', async () => {
    expect((await api('GET', '/v1/incidents')).status).toBe(401);
    expect((await api('POST', '/v1/incidents', { body: valid })).status).toBe(401);
    expect((await api('GET', '/v1/incidents/stats')).status).toBe(401);
  });
});

describe('incidents: status, root cause and resolution', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('LEDGER');
  });
  const fresh = async () => (await create(firm, valid)).body.id as string;

  it('moves OPEN -> INVESTIGATING -> REMEDIATING -> INVESTIGATING; sets and clears the root cause', async () => {
    const id = await fresh();
    for (const status of ['INVESTIGATING', 'REMEDIATING', 'INVESTIGATING']) {
      const response = await update(firm, id, { status });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status, resolvedAt: null });
    }
    const withCause = await update(firm, id, { rootCause: 'Retrieval index was stale' });
    expect(withCause.body.rootCause).toBe('Retrieval index was stale');
    const cleared = await update(firm, id, { rootCause: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.rootCause).toBeNull();
    expect(await recordsOf(firm, 'INCIDENT_RESOLVED', id)).toHaveLength(0);
  });

  it('RESOLVED stamps resolvedAt and writes INCIDENT_RESOLVED once; CLOSED afterwards keeps both', async () => {
    const id = await fresh();
    await update(firm, id, { status: 'INVESTIGATING' });
    const resolved = await update(firm, id, { status: 'RESOLVED', rootCause: 'Prompt template bug' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.status).toBe('RESOLVED');
    expect(Date.parse(resolved.body.resolvedAt)).not.toBeNaN();
    const records = await recordsOf(firm, 'INCIDENT_RESOLVED', id);
    expect(records).toHaveLength(1);
    expect(records[0].documentMetadata).toEqual({
      incidentId: id,
      title: base.title,
      severity: 'HIGH',
      category: 'AI_MODEL',
      status: 'RESOLVED',
      rootCause: 'Prompt template bug',
      affectedReviewJobIds: [],
      affectedLedgerRecordIds: [],
      reportedAt: resolved.body.reportedAt,
      resolvedAt: resolved.body.resolvedAt,
    });
    // Root cause may still be refined after resolution, without a new record.
    expect((await update(firm, id, { rootCause: 'Prompt template bug (v2)' })).status).toBe(200);
    const closed = await update(firm, id, { status: 'CLOSED' });
    expect(closed.body).toMatchObject({ status: 'CLOSED', resolvedAt: resolved.body.resolvedAt });
    expect(await recordsOf(firm, 'INCIDENT_RESOLVED', id)).toHaveLength(1);
    // Repeating the status is a no-op; anything else on a CLOSED incident is final.
    expect((await update(firm, id, { status: 'CLOSED' })).status).toBe(200);
    for (const body of [
      { status: 'RESOLVED' },
      { status: 'OPEN' },
      { rootCause: 'changed' },
      { rootCause: null },
    ]) {
      const response = await update(firm, id, body);
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('CONFLICT');
    }
    expect((await api('GET', `/v1/incidents/${id}`, { key: firm.key })).body).toEqual(closed.body);
  });

  it('CLOSED straight from OPEN also resolves (one record, status CLOSED in the snapshot)', async () => {
    const id = await fresh();
    const closed = await update(firm, id, { status: 'CLOSED' });
    expect(closed.body.resolvedAt).not.toBeNull();
    const records = await recordsOf(firm, 'INCIDENT_RESOLVED', id);
    expect(records.map((r: any) => r.documentMetadata.status)).toEqual(['CLOSED']);
  });

  it.each([
    ['INVESTIGATING', 'OPEN'],
    ['REMEDIATING', 'OPEN'],
    ['RESOLVED', 'OPEN'],
    ['RESOLVED', 'INVESTIGATING'],
    ['RESOLVED', 'REMEDIATING'],
  ])('409 for %s -> %s, nothing changes', async (from, to) => {
    const id = await fresh();
    await update(firm, id, { status: from });
    const before = await api('GET', `/v1/incidents/${id}`, { key: firm.key });
    const response = await update(firm, id, { status: to, rootCause: 'x' });
    expect(response.status).toBe(409);
    expect((await api('GET', `/v1/incidents/${id}`, { key: firm.key })).body).toEqual(before.body);
  });

  it('400 for an empty body, an unknown status, a client-set resolvedAt, an empty root cause', async () => {
    const id = await fresh();
    for (const body of [
      {},
      { status: 'DONE' },
      { resolvedAt: new Date().toISOString() },
      { rootCause: '' },
    ]) {
      const response = await update(firm, id, body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await api('GET', `/v1/incidents/${id}`, { key: firm.key })).body.status).toBe('OPEN');
  });

  it('concurrent resolutions write exactly one INCIDENT_RESOLVED', async () => {
    const id = await fresh();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => update(firm, id, { status: 'RESOLVED' })),
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const records = await recordsOf(firm, 'INCIDENT_RESOLVED', id);
    expect(records).toHaveLength(1);
    const stored = await api('GET', `/v1/incidents/${id}`, { key: firm.key });
    expect(stored.body.resolvedAt).toBe(records[0].documentMetadata.resolvedAt);
    expect(new Set(responses.map((r) => r.body.resolvedAt))).toEqual(new Set([stored.body.resolvedAt]));

    // Racing RESOLVED against CLOSED: still exactly one record.
    const other = await fresh();
    await Promise.all([
      update(firm, other, { status: 'RESOLVED' }),
      update(firm, other, { status: 'CLOSED' }),
      update(firm, other, { status: 'RESOLVED' }),
    ]);
    expect(await recordsOf(firm, 'INCIDENT_RESOLVED', other)).toHaveLength(1);
  });

  it("404 for another firm's incident, an unknown and a malformed id", async () => {
    const other = await createFirm('LEDGER');
    const theirs = (await create(other, valid)).body.id;
    for (const id of [theirs, `inc_${ULID_TAIL(9)}`, 'nope']) {
      for (const response of [
        await api('GET', `/v1/incidents/${id}`, { key: firm.key }),
        await update(firm, id, { status: 'RESOLVED' }),
        await api('POST', `/v1/incidents/${id}/remediations`, { key: firm.key, body: { description: 'x' } }),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('NOT_FOUND');
      }
    }
    expect((await api('GET', `/v1/incidents/${theirs}`, { key: other.key })).body.status).toBe('OPEN');
  });
});

describe('incidents: remediations', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('LEDGER');
  });
  const add = (incidentId: string, body: unknown) =>
    api('POST', `/v1/incidents/${incidentId}/remediations`, { key: firm.key, body });
  const change = (incidentId: string, id: string, body: unknown) =>
    api('POST', `/v1/incidents/${incidentId}/remediations/${id}`, { key: firm.key, body });

  it('adds OPEN actions; completedAt set on COMPLETED, kept while COMPLETED, cleared otherwise', async () => {
    const incidentId = (await create(firm, valid)).body.id;
    const made = await add(incidentId, {
      description: 'Rebuild the retrieval index',
      ownerName: 'Ops',
      dueAt: '2026-12-01T09:00:00+01:00',
    });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^rem_/),
      incidentId,
      description: 'Rebuild the retrieval index',
      status: 'OPEN',
      ownerName: 'Ops',
      dueAt: '2026-12-01T08:00:00.000Z',
      completedAt: null,
      createdAt: made.body.createdAt,
    });
    const second = await add(incidentId, { description: 'Add a regression test' });
    expect(second.body).toMatchObject({ ownerName: null, dueAt: null });

    const done = await change(incidentId, made.body.id, { status: 'COMPLETED' });
    expect(done.status).toBe(200);
    expect(Date.parse(done.body.completedAt)).not.toBeNaN();
    const again = await change(incidentId, made.body.id, { status: 'COMPLETED', ownerName: 'Ops team' });
    expect(again.body).toMatchObject({ completedAt: done.body.completedAt, ownerName: 'Ops team' });
    const reopened = await change(incidentId, made.body.id, { status: 'IN_PROGRESS' });
    expect(reopened.body).toMatchObject({ status: 'IN_PROGRESS', completedAt: null });

    const incident = await api('GET', `/v1/incidents/${incidentId}`, { key: firm.key });
    expect(incident.body.remediations).toEqual([reopened.body, second.body]);
    const list = await api('GET', '/v1/incidents', { key: firm.key });
    expect(list.body.find((i: { id: string }) => i.id === incidentId).remediations).toEqual([
      reopened.body,
      second.body,
    ]);
  });

  it('400 for client-set completedAt or status on creation, an unknown status, an empty update', async () => {
    const incidentId = (await create(firm, valid)).body.id;
    expect((await add(incidentId, { description: 'x', status: 'COMPLETED' })).status).toBe(400);
    expect((await add(incidentId, { ownerName: 'x' })).status).toBe(400);
    const made = await add(incidentId, { description: 'x' });
    for (const body of [{}, { completedAt: new Date().toISOString() }, { status: 'DONE' }])
      expect((await change(incidentId, made.body.id, body)).status).toBe(400);
  });

  it('404 for an unknown remediation, or one of another incident or firm', async () => {
    const a = (await create(firm, valid)).body.id;
    const b = (await create(firm, valid)).body.id;
    const ofB = (await add(b, { description: 'x' })).body.id;
    expect((await change(a, ofB, { status: 'COMPLETED' })).status).toBe(404);
    expect((await change(a, `rem_${ULID_TAIL(5)}`, { status: 'COMPLETED' })).status).toBe(404);
    const other = await createFirm('LEDGER');
    const response = await api('POST', `/v1/incidents/${b}/remediations/${ofB}`, {
      key: other.key,
      body: { status: 'COMPLETED' },
    });
    expect(response.status).toBe(404);
    expect((await api('GET', `/v1/incidents/${b}`, { key: firm.key })).body.remediations[0].status).toBe(
      'OPEN',
    );
  });

  it('a CLOSED incident takes no new or changed actions (409)', async () => {
    const incidentId = (await create(firm, valid)).body.id;
    const made = await add(incidentId, { description: 'x' });
    await update(firm, incidentId, { status: 'CLOSED' });
    expect((await add(incidentId, { description: 'late' })).status).toBe(409);
    expect((await change(incidentId, made.body.id, { status: 'COMPLETED' })).status).toBe(409);
  });
});

describe('incidents: list limit and statistics', () => {
  /** Seeds incidents straight into the table, as a data migration would, with chosen timestamps. */
  async function seed(firmId: string, incidents: Record<string, unknown>[]): Promise<void> {
    const deps = stackDeps();
    for (let i = 0; i < incidents.length; i += 25) {
      await deps.db.send(
        new BatchWriteCommand({
          RequestItems: {
            [deps.tables.main]: incidents.slice(i, i + 25).map((item) => ({
              PutRequest: {
                Item: {
                  ...(item.incidentId
                    ? keys.remediation(firmId, item.incidentId as string, item.id as string)
                    : keys.incident(firmId, item.id as string)),
                  ...item,
                },
              },
            })),
          },
        }),
      );
    }
    // Written outside the services, as a data migration would: the counters' backfill makes them count.
    await recountFirmCounters(deps, firmId);
  }
  const incident = (firmId: string, n: number, fields: Record<string, unknown>) => ({
    id: `inc_${ULID_TAIL(n)}`,
    firmId,
    ...base,
    severity: 'LOW',
    category: 'OTHER',
    status: 'OPEN',
    reportedAt: new Date(Date.UTC(2020, 0, 1) + n * 60_000).toISOString(),
    reportedById: null,
    reportedBy: null,
    resolvedAt: null,
    rootCause: null,
    affectedReviewJobIds: [],
    affectedLedgerRecordIds: [],
    metadata: {},
    version: 1,
    ...fields,
  });

  it('lists the 200 most recent, newest first, each with its remediations', async () => {
    const firm = await createFirm('LEDGER');
    const items = Array.from({ length: 203 }, (_, i) => incident(firm.firmId, i + 1, {}));
    const remediation = (incidentN: number, n: number) => ({
      id: `rem_${ULID_TAIL(n)}`,
      incidentId: `inc_${ULID_TAIL(incidentN)}`,
      firmId: firm.firmId,
      description: `r${n}`,
      status: 'OPEN',
      ownerName: null,
      dueAt: null,
      completedAt: null,
      createdAt: new Date(Date.UTC(2021, 0, 1) + n).toISOString(),
      version: 1,
    });
    await seed(firm.firmId, [
      ...items,
      remediation(203, 1),
      remediation(203, 2),
      remediation(4, 3),
      remediation(3, 4),
    ]);
    const list = await api('GET', '/v1/incidents', { key: firm.key });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(200);
    expect(list.body[0].id).toBe(`inc_${ULID_TAIL(203)}`);
    expect(list.body[199].id).toBe(`inc_${ULID_TAIL(4)}`);
    expect(list.body[0].remediations.map((r: { id: string }) => r.id)).toEqual([
      `rem_${ULID_TAIL(1)}`,
      `rem_${ULID_TAIL(2)}`,
    ]);
    expect(list.body[199].remediations.map((r: { id: string }) => r.id)).toEqual([`rem_${ULID_TAIL(3)}`]);
    expect(list.body[1].remediations).toEqual([]);
    // Reported time orders the list, newest first.
    const times = list.body.map((i: { reportedAt: string }) => i.reportedAt);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('counts total, open, resolved, critical, byCategory and a 12-month trend (hand-computed)', async () => {
    const firm = await createFirm('LEDGER');
    const now = new Date();
    const monthStart = (back: number, day = 2) =>
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, day, 12)).toISOString();
    await seed(firm.firmId, [
      // Reported 13 months ago: outside the trend, inside the totals; resolved 11 months ago (inside).
      incident(firm.firmId, 1, { reportedAt: monthStart(13), status: 'CLOSED', resolvedAt: monthStart(11) }),
      incident(firm.firmId, 2, {
        reportedAt: monthStart(11),
        severity: 'CRITICAL',
        category: 'DATA_PROTECTION',
      }),
      incident(firm.firmId, 3, {
        reportedAt: monthStart(2),
        status: 'RESOLVED',
        resolvedAt: monthStart(1),
        category: 'DATA_PROTECTION',
      }),
      incident(firm.firmId, 4, { reportedAt: monthStart(2), status: 'INVESTIGATING', severity: 'CRITICAL' }),
    ]);
    // And one through the API, reported now.
    expect((await create(firm, { ...valid, severity: 'CRITICAL', category: 'AI_MODEL' })).status).toBe(201);

    const stats = await api('GET', '/v1/incidents/stats', { key: firm.key });
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ total: 5, open: 3, resolved: 2, critical: 3 });
    expect(stats.body.byCategory).toMatchObject({ OTHER: 2, DATA_PROTECTION: 2, AI_MODEL: 1, SECURITY: 0 });
    expect(Object.keys(stats.body.byCategory)).toHaveLength(11);
    const trend = stats.body.trend;
    expect(trend).toHaveLength(12);
    const month = (back: number) => monthStart(back).slice(0, 7);
    expect(trend.map((p: { month: string }) => p.month)).toEqual(
      Array.from({ length: 12 }, (_, i) => month(11 - i)),
    );
    const at = (back: number) => trend[11 - back];
    expect(at(11)).toEqual({ month: month(11), reported: 1, resolved: 1, critical: 1 });
    expect(at(2)).toEqual({ month: month(2), reported: 2, resolved: 0, critical: 1 });
    expect(at(1)).toEqual({ month: month(1), reported: 0, resolved: 1, critical: 0 });
    expect(at(0)).toEqual({ month: month(0), reported: 1, resolved: 0, critical: 1 });
    const sum = (f: string) => trend.reduce((n: number, p: any) => n + p[f], 0);
    expect([sum('reported'), sum('resolved'), sum('critical')]).toEqual([4, 2, 3]);
  });

  it('an empty firm has zero statistics and twelve empty months', async () => {
    const firm = await createFirm('LEDGER');
    const stats = await api('GET', '/v1/incidents/stats', { key: firm.key });
    expect(stats.body).toMatchObject({ total: 0, open: 0, resolved: 0, critical: 0 });
    expect(Object.values(stats.body.byCategory).every((n) => n === 0)).toBe(true);
    expect(stats.body.trend.every((p: any) => p.reported + p.resolved + p.critical === 0)).toBe(true);
    expect(stats.body.trend).toHaveLength(12);
  });
});
