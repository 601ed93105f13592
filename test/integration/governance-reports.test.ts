import { api, createFirm, seedUser, stackDeps, tokenFor, type TestFirm } from './helpers.js';
import { many, putJobOnly, jobItem, seedJobs } from './governance-seed.js';
import { appendRecord } from '../../shared/ledger-writer/append.js';
import { aggregateOutcomeRecord } from '../../shared/services/reporting.js';
import type { Deps } from '../../shared/runtime/deps.js';

const DAY = 86_400_000;
const ago = (days: number, extraMs = 0) => new Date(Date.now() - days * DAY + extraMs).toISOString();

describe('GET /v1/models', () => {
  let firm: TestFirm;
  let other: TestFirm;
  beforeAll(async () => {
    [firm, other] = await Promise.all([createFirm(), createFirm()]);
    const acme = { provider: 'acme', version: '1.0' };
    await seedJobs(firm.firmId, [
      { outcome: 'APPROVED', completedAt: ago(3), model: acme, annotationCount: 2 },
      { outcome: 'REJECTED', completedAt: ago(2), model: acme, annotationCount: 1 },
      { outcome: 'APPROVED_WITH_MODIFICATIONS', completedAt: ago(1), model: acme },
      { outcome: 'APPROVED', completedAt: ago(1), model: { provider: 'beta', version: '7' } },
      { outcome: 'APPROVED', completedAt: ago(1) },
    ]);
    await putJobOnly(jobItem(firm.firmId, { model: acme })); // queued: seen, not completed
  });

  it('lists each provider/version seen on a job with usage counts and outcome rates', async () => {
    const response = await api('GET', '/v1/models', { key: firm.key });
    expect(response.status).toBe(200);
    expect(
      response.body.map((m: any) => [m.provider, m.version, m.jobCount, m.completedJobs, m.openJobs]),
    ).toEqual([
      ['acme', '1.0', 4, 3, 1],
      ['beta', '7', 1, 1, 0],
    ]);
    const acme = response.body[0];
    expect(acme.approvalRate).toBeCloseTo(1 / 3, 10);
    expect(acme.modificationRate).toBeCloseTo(1 / 3, 10);
    expect(acme.rejectionRate).toBeCloseTo(1 / 3, 10);
    expect(acme.annotationCount).toBe(3);
  });

  it("never shows another firm's models", async () => {
    const response = await api('GET', '/v1/models', { key: other.key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
  });

  it('requires a credential', async () => {
    expect((await api('GET', '/v1/models')).status).toBe(401);
  });
});

describe('GET /v1/models/drift', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm();
    const a = { provider: 'acme', version: '1' };
    const b = { provider: 'beta', version: '2' };
    await seedJobs(firm.firmId, [
      // acme: baseline (31-120 days ago) 5 jobs, 1 rejected; current (last 30 days) 5 jobs, 3 rejected.
      ...many(5, 1, { model: a, completedAt: ago(60) }),
      ...many(5, 3, { model: a, completedAt: ago(5) }),
      // beta: 10 in the baseline, only 4 in the current window: no signal.
      ...many(10, 0, { model: b, completedAt: ago(60) }),
      ...many(4, 4, { model: b, completedAt: ago(5) }),
      // Outside both windows (more than 120 days ago): ignored.
      ...many(5, 5, { model: a, completedAt: ago(200) }),
    ]);
  });

  it('compares the current window with the baseline before it; signals sorted alert, warning, info', async () => {
    const response = await api('GET', '/v1/models/drift', { key: firm.key });
    expect(response.status).toBe(200);
    expect(response.body.baselineWindowDays).toBe(90);
    expect(response.body.currentWindowDays).toBe(30);
    expect(response.body.thresholds.minimumCompletedJobs).toBe(5);
    expect(response.body.thresholds.rejectionRate).toEqual({ warning: 0.05, alert: 0.1 });
    const signals = response.body.signals.map((s: any) => [
      s.provider,
      s.metric,
      s.severity,
      s.baselineValue,
      s.currentValue,
    ]);
    expect(signals).toEqual([
      ['acme', 'rejectionRate', 'alert', 0.2, 0.6],
      ['acme', 'annotationFrequency', 'info', 0, 0],
      ['acme', 'modificationRate', 'info', 0, 0],
    ]);
  });

  it('honours the windows: with a 1-day current window acme has no 5 current jobs', async () => {
    const response = await api('GET', '/v1/models/drift?baselineDays=730&currentDays=1', { key: firm.key });
    expect(response.status).toBe(200);
    expect(response.body.signals).toEqual([]);
  });

  it.each([
    'baselineDays=0',
    'baselineDays=731',
    'currentDays=0',
    'currentDays=731',
    'currentDays=1.5',
    'baselineDays=abc',
  ])('400 for %s', async (query) => {
    const response = await api('GET', `/v1/models/drift?${query}`, { key: firm.key });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('GET /v1/models/{provider}/{version}/timeline', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm();
    const model = { provider: 'acme', version: '1' };
    await seedJobs(firm.firmId, [
      ...many(2, 1, { model, completedAt: '2025-01-06T09:00:00.000Z', annotationCount: 2 }),
      ...many(1, 0, { model, completedAt: '2025-01-12T23:59:59.999Z' }),
      ...many(1, 0, { model, completedAt: '2025-01-20T00:00:00.000Z' }, 1),
      ...many(3, 3, { model: { provider: 'acme', version: '2' }, completedAt: '2025-01-07T00:00:00.000Z' }),
    ]);
  });

  it('gives weekly points (ISO weeks) with rates and annotation counts, empty weeks included', async () => {
    const response = await api('GET', '/v1/models/acme/1/timeline?from=2025-01-06&to=2025-01-26', {
      key: firm.key,
    });
    expect(response.status).toBe(200);
    expect(
      response.body.map((p: any) => [
        p.weekStart,
        p.completedJobs,
        p.rejectionRate,
        p.modificationRate,
        p.annotationCount,
      ]),
    ).toEqual([
      ['2025-01-06T00:00:00.000Z', 3, 1 / 3, 0, 4],
      ['2025-01-13T00:00:00.000Z', 0, null, null, 0],
      ['2025-01-20T00:00:00.000Z', 1, 0, 1, 0],
    ]);
  });

  it('cuts the edges exactly: from 09:00:00.001 on the 6th excludes the jobs at 09:00', async () => {
    const response = await api(
      'GET',
      '/v1/models/acme/1/timeline?from=2025-01-06T09:00:00.001Z&to=2025-01-12',
      {
        key: firm.key,
      },
    );
    expect(response.body.map((p: any) => p.completedJobs)).toEqual([1]);
  });

  it('defaults to the last 180 days (about 26 weeks)', async () => {
    const response = await api('GET', '/v1/models/acme/1/timeline', { key: firm.key });
    expect(response.status).toBe(200);
    expect(response.body.length).toBeGreaterThanOrEqual(26);
    expect(response.body.length).toBeLessThanOrEqual(27);
    expect(response.body.every((p: any) => p.completedJobs === 0)).toBe(true);
  });

  it('400 on an inverted range or an unreadable date', async () => {
    for (const query of ['from=2025-02-01&to=2025-01-01', 'from=2025-02-30', 'to=soon']) {
      const response = await api('GET', `/v1/models/acme/1/timeline?${query}`, { key: firm.key });
      expect(response.status).toBe(400);
    }
  });
});

describe('GET /v1/bias', () => {
  let firm: TestFirm;
  let other: TestFirm;
  beforeAll(async () => {
    [firm, other] = await Promise.all([createFirm(), createFirm()]);
    const june = '2025-06-10T10:00:00.000Z';
    await seedJobs(firm.firmId, [
      ...many(20, 10, { completedAt: june, clientSegments: { ageBand: 'young' } }),
      ...many(30, 3, { completedAt: june, clientSegments: { ageBand: 'old' } }),
      ...many(5, 5, { completedAt: june, clientSegments: { ageBand: 'tiny' } }),
      // Boundaries of June: the last millisecond is in, the first of July out, the first of June in.
      { outcome: 'REJECTED', completedAt: '2025-06-30T23:59:59.999Z', clientSegments: { region: 'north' } },
      { outcome: 'REJECTED', completedAt: '2025-07-01T00:00:00.000Z', clientSegments: { region: 'north' } },
      { outcome: 'APPROVED', completedAt: '2025-06-01T00:00:00.000Z', clientSegments: { region: 'north' } },
    ]);
  });

  it('computes rates, baselines, intervals, disparate impact and flags from the firm thresholds', async () => {
    const response = await api('GET', '/v1/bias?from=2025-06-01&to=2025-06-30', { key: firm.key });
    expect(response.status).toBe(200);
    const report = response.body;
    expect(report.periodFrom).toBe('2025-06-01T00:00:00.000Z');
    expect(report.periodTo).toBe('2025-06-30T23:59:59.999Z');
    expect(report.totalRecords).toBe(57);
    expect(report.overallRejectionRate).toBeCloseTo(19 / 57, 10);
    const age = report.dimensions.find((d: any) => d.dimension === 'ageBand');
    expect(age.baselineRejectionRate).toBeCloseTo(18 / 55, 10);
    const young = age.segments.find((s: any) => s.value === 'young');
    expect(young).toMatchObject({
      total: 20,
      rejected: 10,
      rejectionRate: 0.5,
      eligible: true,
      fourFifthsRulePasses: false,
    });
    expect(young.rejectionRateInterval.lower).toBeCloseTo(0.29929, 4);
    expect(young.disparateImpactRatio).toBeCloseTo(0.5 / 0.9, 10);
    expect(age.fourFifthsViolations).toEqual(['young']);
    const region = report.dimensions.find((d: any) => d.dimension === 'region');
    expect(region.segments).toMatchObject([{ value: 'north', total: 2, rejected: 1, eligible: false }]);
    expect(report.flags.map((f: any) => [f.kind, f.severity, f.dimension, f.segment])).toEqual([
      ['absolute', 'alert', 'ageBand', 'young'],
      ['divergence', 'alert', 'ageBand', 'old'],
      ['divergence', 'warning', 'ageBand', 'young'],
    ]);
    expect(report.thresholds).toEqual({ warning: 0.1, alert: 0.2, absoluteRejectionAlert: 0.5 });
    expect(report.rejectionAlertThreshold).toBe(0.3);
    expect(report.method.minimumSegmentSize).toBe(20);
    expect(report.trend).toEqual([{ month: '2025-06', total: 57, rejected: 19, rejectionRate: 19 / 57 }]);
  });

  it('reads partial edge days job by job, to the millisecond', async () => {
    const response = await api('GET', '/v1/bias?from=2025-06-10T10:00:00.001Z&to=2025-07-01T00:00:00.000Z', {
      key: firm.key,
    });
    expect(response.body.totalRecords).toBe(2); // the two region jobs at the end of June and 1 July
    const at = await api('GET', '/v1/bias?from=2025-06-10T10:00:00.000Z&to=2025-06-10T10:00:00.000Z', {
      key: firm.key,
    });
    expect(at.body.totalRecords).toBe(55);
  });

  it('adds a whole month bucket to the day buckets around it (15 May to 1 July)', async () => {
    const response = await api('GET', '/v1/bias?from=2025-05-15&to=2025-07-01', { key: firm.key });
    expect(response.body.totalRecords).toBe(58); // June's 57 and the job at 1 July 00:00
    expect(response.body.trend.map((p: any) => [p.month, p.total, p.rejected])).toEqual([
      ['2025-05', 0, 0],
      ['2025-06', 57, 19],
      ['2025-07', 1, 1],
    ]);
  });

  it("uses the rejectionThreshold query and the firm's bias settings", async () => {
    const patched = await api('PATCH', '/v1/firm/me/settings', {
      key: firm.key,
      body: { biasWarningThreshold: 0.2, biasAlertThreshold: 0.3 },
    });
    expect(patched.status).toBe(200);
    const response = await api('GET', '/v1/bias?from=2025-06-01&to=2025-06-30&rejectionThreshold=0.6', {
      key: firm.key,
    });
    // |0.1 - 0.327| = 0.227: now a warning; young's 0.173 is under 0.2; 0.5 is not above 0.6.
    expect(response.body.flags.map((f: any) => [f.kind, f.severity, f.segment])).toEqual([
      ['divergence', 'warning', 'old'],
    ]);
    expect(response.body.rejectionAlertThreshold).toBe(0.6);
    expect(response.body.thresholds.warning).toBe(0.2);
    await api('PATCH', '/v1/firm/me/settings', {
      key: firm.key,
      body: { biasWarningThreshold: 0.1, biasAlertThreshold: 0.2 },
    });
  });

  it('defaults to the last 12 months, which hold none of these 2025 jobs', async () => {
    const response = await api('GET', '/v1/bias', { key: firm.key });
    expect(response.status).toBe(200);
    expect(response.body.totalRecords).toBe(0);
    expect(response.body.overallRejectionRate).toBeNull();
    expect(response.body.trend.length).toBe(13);
    expect(Date.parse(response.body.periodTo) - Date.parse(response.body.periodFrom)).toBeGreaterThan(
      364 * DAY,
    );
  });

  it('answers another firm with its own (empty) data', async () => {
    const response = await api('GET', '/v1/bias?from=2025-06-01&to=2025-06-30', { key: other.key });
    expect(response.body).toMatchObject({ totalRecords: 0, dimensions: [], flags: [] });
  });

  it.each([
    'rejectionThreshold=1.5',
    'rejectionThreshold=-0.1',
    'rejectionThreshold=x',
    'from=2025-07-01&to=2025-06-01',
    'from=2025-13-01',
  ])('400 for %s', async (query) => {
    const response = await api('GET', `/v1/bias?${query}`, { key: firm.key });
    expect(response.status).toBe(400);
  });
});

describe('GET /v1/reports/consumer-duty', () => {
  let firm: TestFirm;
  let reviewerId: string;
  beforeAll(async () => {
    firm = await createFirm();
    const reviewer = await seedUser(firm.firmId, 'REVIEWER', `rev-${Date.now()}@cd.test`);
    reviewerId = reviewer.id;
    await seedJobs(firm.firmId, [
      { outcome: 'APPROVED', completedAt: '2025-06-02T10:00:00.000Z', assignedReviewerId: reviewerId },
      {
        outcome: 'REJECTED',
        completedAt: '2025-06-15T10:00:00.000Z',
        assignedReviewerId: reviewerId,
        documentType: 'PENSION_TRANSFER',
      },
      {
        outcome: 'APPROVED_WITH_MODIFICATIONS',
        completedAt: '2025-06-20T10:00:00.000Z',
        slaBreachedAt: '2025-06-19T10:00:00.000Z',
      },
      { outcome: 'APPROVED', completedAt: '2025-06-30T23:59:59.999Z' },
      // The previous period of June (30 days) is 2 May to 31 May.
      { outcome: 'REJECTED', completedAt: '2025-05-02T00:00:00.000Z' },
      { outcome: 'APPROVED', completedAt: '2025-05-31T12:00:00.000Z' },
      { outcome: 'REJECTED', completedAt: '2025-05-01T23:59:59.999Z' }, // before the previous period
    ]);
  });

  it('breaks down outcomes, SLA, reviewers, document types and months, with the previous period', async () => {
    const response = await api('GET', '/v1/reports/consumer-duty?from=2025-06-01&to=2025-06-30', {
      key: firm.key,
    });
    expect(response.status).toBe(200);
    const { metrics } = response.body;
    expect(response.body.periodTo).toBe('2025-06-30T23:59:59.999Z');
    expect(metrics.outcomes).toEqual({
      total: 4,
      approved: 2,
      approvedWithModifications: 1,
      rejected: 1,
      approvalRate: 0.5,
      modificationRate: 0.25,
      rejectionRate: 0.25,
    });
    expect(metrics.slaCompliance).toEqual({ completed: 4, withinSla: 3, breached: 1, complianceRate: 0.75 });
    // Defaults: rejection alert at 0.25, SLA alert at or below 0.9.
    expect(metrics.states).toEqual({
      rejectionRate: 'alert',
      slaCompliance: 'alert',
      readCompletion: 'not_measured',
    });
    expect(metrics.reviewerWorkload).toEqual([
      expect.objectContaining({
        reviewerId,
        reviewerName: 'REVIEWER user',
        total: 2,
        approved: 1,
        rejected: 1,
        breached: 0,
      }),
    ]);
    expect(metrics.documentTypes.map((d: any) => [d.documentType, d.total, d.rejected])).toEqual([
      ['SUITABILITY_REPORT', 3, 0],
      ['PENSION_TRANSFER', 1, 1],
    ]);
    expect(metrics.monthly.map((m: any) => [m.month, m.total])).toEqual([['2025-06', 4]]);
    expect(metrics.previousPeriod).toMatchObject({
      periodFrom: '2025-05-02T00:00:00.000Z',
      periodTo: '2025-05-31T23:59:59.999Z',
      outcomes: { total: 2, rejected: 1, approved: 1 },
      slaCompliance: { completed: 2, breached: 0, complianceRate: 1 },
    });
    expect(metrics.ledgerAnchor).toEqual({
      firstRecord: null,
      lastRecord: null,
      recordCount: 0,
      chainHash: null,
    });
  });

  it('follows the firm thresholds: with a rejection alert at 0.3 a rate of 0.25 is a warning', async () => {
    await api('PATCH', '/v1/firm/me/settings', {
      key: firm.key,
      body: {
        cdRejectionRateWarningThreshold: 0.2,
        cdRejectionRateAlertThreshold: 0.3,
        cdSlaComplianceAlertThreshold: 0.7,
      },
    });
    const response = await api('GET', '/v1/reports/consumer-duty?from=2025-06-01&to=2025-06-30', {
      key: firm.key,
    });
    expect(response.body.metrics.states).toMatchObject({
      rejectionRate: 'warning',
      slaCompliance: 'warning',
    });
  });

  it('anchors the window on the ledger: first and last record in it and the chain hash', async () => {
    // Two compliance-relevant setting changes write two ledger records now.
    await api('PATCH', '/v1/firm/me/settings', { key: firm.key, body: { enforceImpactAssessments: false } });
    await api('PATCH', '/v1/firm/me/settings', { key: firm.key, body: { enforceImpactAssessments: true } });
    const records = await api('GET', '/v1/ledger/records?pageSize=100', { key: firm.key });
    const sorted = [...records.body.data].sort((a: any, b: any) => a.sequenceNumber - b.sequenceNumber);
    const first = sorted[0];
    const last = sorted[sorted.length - 1];
    const response = await api('GET', '/v1/reports/consumer-duty', { key: firm.key });
    expect(response.status).toBe(200);
    expect(response.body.metrics.ledgerAnchor).toEqual({
      firstRecord: {
        id: first.id,
        sequenceNumber: first.sequenceNumber,
        timestamp: first.timestamp,
        eventType: first.eventType,
        chainHash: first.chainHash,
      },
      lastRecord: {
        id: last.id,
        sequenceNumber: last.sequenceNumber,
        timestamp: last.timestamp,
        eventType: last.eventType,
        chainHash: last.chainHash,
      },
      recordCount: last.sequenceNumber - first.sequenceNumber + 1,
      chainHash: last.chainHash,
    });
    // A window that starts after the first record leaves it out.
    const from = new Date(Date.parse(first.timestamp) + 1).toISOString();
    const later = await api('GET', `/v1/reports/consumer-duty?from=${from}`, { key: firm.key });
    expect(later.body.metrics.ledgerAnchor.firstRecord.sequenceNumber).toBeGreaterThan(first.sequenceNumber);
  });

  it('400 for an inverted or unreadable period', async () => {
    for (const query of ['from=2025-07-01&to=2025-06-01', 'to=2025-06-31']) {
      expect((await api('GET', `/v1/reports/consumer-duty?${query}`, { key: firm.key })).status).toBe(400);
    }
  });
});

describe('GET /v1/vulnerability', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm();
    const specialist = await seedUser(firm.firmId, 'REVIEWER', `spec-${Date.now()}@v.test`);
    await seedUser(firm.firmId, 'REVIEWER', `plain-${Date.now()}@v.test`);
    const flagged = await api('POST', `/v1/firm/me/users/${specialist.id}`, {
      key: firm.key,
      body: { specialistVulnerability: true },
    });
    expect(flagged.status).toBe(200);
    await seedJobs(firm.firmId, [
      {
        outcome: 'REJECTED',
        completedAt: ago(2),
        vulnerabilityFlags: ['health', 'capability'],
        requiresSeniorSignOff: true,
      },
      {
        outcome: 'APPROVED',
        completedAt: ago(1),
        vulnerabilityFlags: ['health'],
        requiresSeniorSignOff: true,
      },
      { outcome: 'APPROVED', completedAt: ago(1) },
    ]);
    await putJobOnly(
      jobItem(firm.firmId, { vulnerabilityFlags: ['life_event'], requiresSeniorSignOff: true }),
    );
    await putJobOnly(jobItem(firm.firmId, { requiresSeniorSignOff: true, status: 'ESCALATED' }));
  });

  it('counts flagged jobs per flag, specialist cover and the senior sign-off backlog', async () => {
    const response = await api('GET', '/v1/vulnerability', { key: firm.key });
    expect(response.status).toBe(200);
    const report = response.body;
    expect(report.totalFlaggedJobs).toBe(3);
    expect(report.totalUnflaggedJobs).toBe(2);
    expect(report.flagBreakdown).toEqual([
      {
        flag: 'health',
        totalJobs: 2,
        openJobs: 0,
        completedJobs: 2,
        approved: 1,
        approvedWithModifications: 0,
        rejected: 1,
        rejectionRate: 0.5,
      },
      {
        flag: 'life_event',
        totalJobs: 1,
        openJobs: 1,
        completedJobs: 0,
        approved: 0,
        approvedWithModifications: 0,
        rejected: 0,
        rejectionRate: null,
      },
      {
        flag: 'capability',
        totalJobs: 1,
        openJobs: 0,
        completedJobs: 1,
        approved: 0,
        approvedWithModifications: 0,
        rejected: 1,
        rejectionRate: 1,
      },
      {
        flag: 'resilience',
        totalJobs: 0,
        openJobs: 0,
        completedJobs: 0,
        approved: 0,
        approvedWithModifications: 0,
        rejected: 0,
        rejectionRate: null,
      },
    ]);
    // Users: the onboarded admin and two reviewers, one a specialist.
    expect(report.specialistReviewerCount).toBe(1);
    expect(report.eligibleReviewerCount).toBe(2);
    expect(report.totalReviewerCount).toBe(3);
    expect(report.awaitingSeniorSignOff).toBe(2);
    expect(report.recentFlaggedJobs).toHaveLength(3);
  });
});

describe('explainability', () => {
  let firm: TestFirm;
  let other: TestFirm;
  let completedId: string;
  let openId: string;
  let recordId: string;
  let reviewerName: string;
  beforeAll(async () => {
    [firm, other] = await Promise.all([createFirm(), createFirm()]);
    const reviewer = await seedUser(firm.firmId, 'LEAD_REVIEWER', `lead-${Date.now()}@x.test`);
    reviewerName = reviewer.name;
    const job = jobItem(firm.firmId, {
      outcome: 'APPROVED',
      completedAt: ago(1),
      clientReference: 'CLI-42',
      assignedReviewerId: reviewer.id,
      model: { provider: 'acme', version: '1' },
    });
    // An outcome record naming the job, as completion writes it; the record id goes on the job.
    const record = await appendRecord(stackDeps(), {
      firmId: firm.firmId,
      eventType: 'DOCUMENT_APPROVED',
      actor: { id: reviewer.id, name: reviewer.name, fcaRef: reviewer.fcaRef },
      documentHash: job.documentHash,
      documentMetadata: { jobId: job.id },
      reviewJobId: job.id,
    });
    recordId = record.id;
    await putJobOnly({ ...job, ledgerRecordId: record.id, certificateId: 'cert_1' });
    completedId = job.id;
    await seedJobs(firm.firmId, [{ outcome: 'REJECTED', completedAt: ago(2), clientReference: 'CLI-42' }]);
    const open = jobItem(firm.firmId, { clientReference: 'CLI-42' });
    await putJobOnly(open);
    openId = open.id;
  });

  it('explains a completed job: job, reviewer, certificate, outcome record, firm', async () => {
    const response = await api('GET', `/v1/explainability/${completedId}`, { key: firm.key });
    expect(response.status).toBe(200);
    expect(response.body.job).toMatchObject({
      id: completedId,
      outcome: 'APPROVED',
      aiContext: { model: { provider: 'acme', version: '1' } },
    });
    expect(response.body.reviewer).toMatchObject({ name: reviewerName, role: 'LEAD_REVIEWER' });
    expect(response.body.certificate).toEqual({ id: 'cert_1', verificationPath: '/v1/verify/cert_1' });
    expect(response.body.ledgerRecord).toMatchObject({
      id: recordId,
      eventType: 'DOCUMENT_APPROVED',
      reviewJobId: completedId,
    });
    expect(response.body.firm).toMatchObject({ id: firm.firmId });
  });

  it('409 for a job without an outcome, 404 for unknown or foreign jobs', async () => {
    expect((await api('GET', `/v1/explainability/${openId}`, { key: firm.key })).status).toBe(409);
    expect(
      (await api('GET', '/v1/explainability/job_01ARZ3NDEKTSV4RRFFQ69G5FAV', { key: firm.key })).status,
    ).toBe(404);
    expect((await api('GET', `/v1/explainability/${completedId}`, { key: other.key })).status).toBe(404);
  });

  it('is for senior users: a REVIEWER gets 403, a LEAD_REVIEWER 200', async () => {
    const reviewer = await seedUser(firm.firmId, 'REVIEWER', `r-${Date.now()}@x.test`);
    const lead = await seedUser(firm.firmId, 'LEAD_REVIEWER', `l-${Date.now()}@x.test`);
    const denied = await api('GET', `/v1/explainability/${completedId}`, {
      token: await tokenFor(firm.firmId, reviewer.email),
    });
    expect(denied.status).toBe(403);
    const allowed = await api('GET', `/v1/explainability/${completedId}`, {
      token: await tokenFor(firm.firmId, lead.email),
    });
    expect(allowed.status).toBe(200);
  });

  it('searches by client reference: completed jobs only, most recently completed first, own firm only', async () => {
    const response = await api('GET', '/v1/explainability/search?clientReference=CLI-42', { key: firm.key });
    expect(response.status).toBe(200);
    expect(response.body.map((r: any) => [r.job.outcome, r.job.clientReference])).toEqual([
      ['APPROVED', 'CLI-42'],
      ['REJECTED', 'CLI-42'],
    ]);
    expect(response.body[0].job.id).toBe(completedId);
    const foreign = await api('GET', '/v1/explainability/search?clientReference=CLI-42', { key: other.key });
    expect(foreign.body).toEqual([]);
  });

  it('400 without clientReference', async () => {
    expect((await api('GET', '/v1/explainability/search', { key: firm.key })).status).toBe(400);
    expect((await api('GET', '/v1/explainability/search?clientReference=', { key: firm.key })).status).toBe(
      400,
    );
  });
});

describe('aggregation through the real dispatch path', () => {
  it('an outcome record whose first dispatch failed is aggregated by the stack after the outbox sweep, once', async () => {
    const firm = await createFirm();
    const job = jobItem(firm.firmId, {
      outcome: 'REJECTED',
      completedAt: '2025-03-03T10:00:00.000Z',
      clientSegments: { ageBand: '65+' },
      annotationCount: 4,
    });
    await putJobOnly(job);
    // This process's queue is down: the record commits and is archived, its dispatch fails, the outbox keeps it.
    const failing: Deps = {
      ...stackDeps(),
      queue: { send: async () => Promise.reject(new Error('queue unavailable')) },
    };
    const record = await appendRecord(failing, {
      firmId: firm.firmId,
      eventType: 'DOCUMENT_REJECTED',
      actor: { id: 'usr_x', name: 'Reviewer', fcaRef: null },
      documentHash: job.documentHash,
      documentMetadata: { jobId: job.id },
      reviewJobId: job.id,
    });
    const bias = () => api('GET', '/v1/bias?from=2025-03-01&to=2025-03-31', { key: firm.key });
    expect((await bias()).body.totalRecords).toBe(0);

    // The stack's sweep (1 s interval, 2 s grace in tests) re-dispatches it to the reporting worker.
    let report: any;
    for (let attempt = 0; attempt < 120; attempt++) {
      report = (await bias()).body;
      if (report.totalRecords > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(report.totalRecords).toBe(1);
    expect(report.overallRejectionRate).toBe(1);
    expect(report.dimensions[0].segments[0]).toMatchObject({ value: '65+', total: 1, rejected: 1 });

    // At least once: a second delivery of the same record changes nothing.
    const again = await aggregateOutcomeRecord(stackDeps(), {
      firmId: firm.firmId,
      sequenceNumber: record.sequenceNumber,
      recordId: record.id,
      eventType: 'DOCUMENT_REJECTED',
    });
    expect(again).toBe('already-aggregated');
    expect((await bias()).body.totalRecords).toBe(1);
  });
});
