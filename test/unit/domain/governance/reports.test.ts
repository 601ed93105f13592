import {
  addFact,
  contributions,
  counterKey,
  factOfJob,
  tallyOf,
  sumCounters,
  type CompletedJobLike,
  type DayCounters,
  type ReportingFact,
} from '../../../../shared/domain/governance/aggregates.js';
import { computeBias, MIN_SEGMENT_SIZE } from '../../../../shared/domain/governance/bias.js';
import { computeConsumerDuty } from '../../../../shared/domain/governance/consumer-duty.js';
import {
  computeDrift,
  summariseModels,
  weeklyTimeline,
} from '../../../../shared/domain/governance/models.js';
import type { JobOutcome } from '../../../../shared/domain/review/jobs.js';

const t = (iso: string) => Date.parse(iso);
let seq = 0;

function fact(overrides: Partial<ReportingFact> & { outcome: JobOutcome }): ReportingFact {
  seq += 1;
  return {
    jobId: `job_${seq}`,
    completedAt: '2026-03-10T12:00:00.000Z',
    model: null,
    documentType: 'SUITABILITY_REPORT',
    segments: {},
    reviewerId: 'usr_a',
    vulnerabilityFlags: [],
    slaBreached: false,
    annotationCount: 0,
    ...overrides,
  };
}

/** n facts: `rejected` REJECTED, `modified` APPROVED_WITH_MODIFICATIONS, the rest APPROVED. */
function facts(
  n: number,
  rejected: number,
  extra: Partial<ReportingFact> = {},
  modified = 0,
): ReportingFact[] {
  return Array.from({ length: n }, (_, i) =>
    fact({
      ...extra,
      outcome:
        i < rejected ? 'REJECTED' : i < rejected + modified ? 'APPROVED_WITH_MODIFICATIONS' : 'APPROVED',
    }),
  );
}

function daysOf(all: ReportingFact[]): DayCounters {
  const days: DayCounters = new Map();
  for (const f of all) addFact(days, f);
  return days;
}

const job = (overrides: Partial<CompletedJobLike> = {}): CompletedJobLike => ({
  id: 'job_1',
  status: 'REJECTED',
  outcome: 'REJECTED',
  completedAt: '2026-03-10T12:00:00.000Z',
  slaDeadline: '2026-03-11T12:00:00.000Z',
  documentType: 'SUITABILITY_REPORT',
  aiContext: { model: { provider: 'acme', version: '1' }, confidence: 0.9 },
  clientSegments: { ageBand: '65+' },
  assignedReviewerId: 'usr_r',
  vulnerabilityFlags: ['health'],
  ...overrides,
});

describe('factOfJob', () => {
  it('keeps what reports need of a completed job; SLA met when completed by the deadline', () => {
    expect(factOfJob(job({ annotationCount: 3 }))).toEqual({
      jobId: 'job_1',
      completedAt: '2026-03-10T12:00:00.000Z',
      outcome: 'REJECTED',
      model: { provider: 'acme', version: '1' },
      documentType: 'SUITABILITY_REPORT',
      segments: { ageBand: '65+' },
      reviewerId: 'usr_r',
      vulnerabilityFlags: ['health'],
      slaBreached: false,
      annotationCount: 3,
    });
  });

  it('counts the SLA as breached when SLA_BREACHED was recorded or the job completed after its deadline', () => {
    expect(factOfJob(job({ slaBreachedAt: '2026-03-09T00:00:00.000Z' }))!.slaBreached).toBe(true);
    expect(factOfJob(job({ completedAt: '2026-03-11T12:00:00.001Z' }))!.slaBreached).toBe(true);
    expect(factOfJob(job({ completedAt: '2026-03-11T12:00:00.000Z' }))!.slaBreached).toBe(false);
  });

  it('has no fact for unfinished or cancelled jobs, and counts missing annotations as 0', () => {
    expect(factOfJob(job({ status: 'IN_REVIEW', outcome: null, completedAt: null }))).toBeNull();
    expect(factOfJob(job({ status: 'CANCELLED', outcome: null }))).toBeNull();
    expect(factOfJob(job())!.annotationCount).toBe(0);
    expect(factOfJob(job({ aiContext: null }))!.model).toBeNull();
  });
});

describe('contributions', () => {
  it('counts the outcome, the SLA and the annotations once in every group the job belongs to', () => {
    const counters = contributions(factOfJob(job({ annotationCount: 2 }))!);
    expect(counters.get(counterKey(['all'], 'o', 'REJECTED'))).toBe(1);
    expect(counters.get(counterKey(['model', 'acme', '1'], 'ann'))).toBe(2);
    expect(counters.get(counterKey(['seg', 'ageBand', '65+'], 'sla', 'met'))).toBe(1);
    expect(counters.get(counterKey(['reviewer', 'usr_r'], 'o', 'REJECTED'))).toBe(1);
    expect(counters.get(counterKey(['vuln', 'health'], 'o', 'REJECTED'))).toBe(1);
    expect(counters.has(counterKey(['unflagged'], 'o', 'REJECTED'))).toBe(false);
    // 6 groups (all, docType, model, one segment, reviewer, one flag) x (outcome, SLA, annotations)
    expect(counters.size).toBe(18);
  });

  it('adds up across jobs', () => {
    const total = sumCounters(facts(4, 1).map(contributions));
    expect(tallyOf(total, ['all'])).toEqual({
      total: 4,
      approved: 3,
      modified: 0,
      rejected: 1,
      slaMet: 4,
      slaBreached: 0,
      annotations: 0,
    });
  });
});

const biasThresholds = { warning: 0.1, alert: 0.2, absoluteAlert: 0.5 };
const march = { from: t('2026-03-01T00:00:00.000Z'), to: t('2026-03-31T23:59:59.999Z') };

describe('computeBias', () => {
  // ageBand: young 20 jobs, 10 rejected (0.5); old 30 jobs, 3 rejected and 0 modified (0.1);
  // tiny 5 jobs, 5 rejected (1.0, below the minimum segment size). Baseline 18/55.
  const all = [
    ...facts(20, 10, { segments: { ageBand: 'young' } }),
    ...facts(30, 3, { segments: { ageBand: 'old' } }),
    ...facts(5, 5, { segments: { ageBand: 'tiny' } }),
  ];
  const report = computeBias(daysOf(all), march, biasThresholds, 0.3);
  const dimension = report.dimensions[0]!;
  const segment = (value: string) => dimension.segments.find((s) => s.value === value)!;

  it('computes the overall and the dimension baseline rejection rates', () => {
    expect(report.totalRecords).toBe(55);
    expect(report.overallRejectionRate).toBeCloseTo(18 / 55, 10);
    expect(dimension.dimension).toBe('ageBand');
    expect(dimension.baselineRejectionRate).toBeCloseTo(18 / 55, 10);
  });

  it('gives each segment its rate, Wilson interval, delta from baseline and disparate-impact ratio', () => {
    expect(segment('young').rejectionRate).toBe(0.5);
    expect(segment('young').deltaFromBaseline).toBeCloseTo(0.5 - 18 / 55, 10);
    // Wilson 95 % of 10/20: [0.2993, 0.7007]
    expect(segment('young').rejectionRateInterval!.lower).toBeCloseTo(0.29929, 4);
    expect(segment('young').rejectionRateInterval!.upper).toBeCloseTo(0.70071, 4);
    expect(dimension.referenceSegment).toBe('old'); // favourable 27/30 = 0.9, the highest eligible
    expect(segment('young').disparateImpactRatio).toBeCloseTo(0.5 / 0.9, 10);
    expect(segment('young').fourFifthsRulePasses).toBe(false);
    expect(segment('old').disparateImpactRatio).toBe(1);
    expect(segment('old').fourFifthsRulePasses).toBe(true);
    expect(dimension.fourFifthsViolations).toEqual(['young']);
  });

  it('reports but never judges a segment below the minimum size', () => {
    expect(segment('tiny').total).toBe(5);
    expect(segment('tiny').rejectionRate).toBe(1);
    expect(segment('tiny').eligible).toBe(false);
    expect(segment('tiny').disparateImpactRatio).toBeNull();
    expect(segment('tiny').fourFifthsRulePasses).toBeNull();
    expect(report.flags.some((f) => f.segment === 'tiny')).toBe(false);
  });

  it('raises divergence and absolute flags by the thresholds, alerts first', () => {
    expect(report.flags.map((f) => [f.kind, f.severity, f.segment])).toEqual([
      ['absolute', 'alert', 'young'], // 0.5 > 0.3, and reaches the firm's absolute alert 0.5
      ['divergence', 'alert', 'old'], // |0.1 - 0.327| = 0.227 >= 0.2
      ['divergence', 'warning', 'young'], // |0.5 - 0.327| = 0.173 >= 0.1, < 0.2
    ]);
    expect(report.flags[0]!.threshold).toBe(0.3);
    expect(report.flags[1]!.threshold).toBe(0.2);
  });

  it('uses the rejection threshold strictly (a rate equal to it is no flag) and minds the minimum size', () => {
    const exact = computeBias(
      daysOf(facts(20, 6, { segments: { region: 'north' } })),
      march,
      biasThresholds,
      0.3,
    );
    expect(exact.flags).toEqual([]); // 6/20 = 0.3 is not above 0.3; the only segment equals its baseline
    const below = computeBias(
      daysOf(facts(MIN_SEGMENT_SIZE - 1, 19, { segments: { region: 'north' } })),
      march,
      biasThresholds,
      0.3,
    );
    expect(below.flags).toEqual([]);
    const at = computeBias(
      daysOf(facts(MIN_SEGMENT_SIZE, 20, { segments: { region: 'north' } })),
      march,
      biasThresholds,
      0.3,
    );
    expect(at.flags.map((f) => f.kind)).toEqual(['absolute']);
  });

  it('applies the four-fifths rule at exactly 0.8', () => {
    const result = computeBias(
      daysOf([
        ...facts(20, 0, { segments: { band: 'a' } }),
        ...facts(20, 4, { segments: { band: 'b' } }), // favourable 16/20 = 0.8 of 1.0: passes
        ...facts(20, 5, { segments: { band: 'c' } }), // 15/20 = 0.75: fails
      ]),
      march,
      biasThresholds,
      0.3,
    );
    const segments = result.dimensions[0]!.segments;
    expect(segments.map((s) => [s.value, s.disparateImpactRatio, s.fourFifthsRulePasses])).toEqual([
      ['a', 1, true],
      ['b', 0.8, true],
      ['c', 0.75, false],
    ]);
  });

  it('has a monthly trend over the whole period, empty months included, and copes with no data', () => {
    const period = { from: t('2026-02-01T00:00:00.000Z'), to: t('2026-04-30T23:59:59.999Z') };
    const result = computeBias(daysOf(facts(4, 1)), period, biasThresholds, 0.3);
    expect(result.trend).toEqual([
      { month: '2026-02', total: 0, rejected: 0, rejectionRate: null },
      { month: '2026-03', total: 4, rejected: 1, rejectionRate: 0.25 },
      { month: '2026-04', total: 0, rejected: 0, rejectionRate: null },
    ]);
    const empty = computeBias(new Map(), period, biasThresholds, 0.3);
    expect(empty).toMatchObject({ totalRecords: 0, overallRejectionRate: null, dimensions: [], flags: [] });
  });
});

describe('computeDrift', () => {
  const a = { provider: 'acme', version: '1' };
  const b = { provider: 'beta', version: '2' };

  it('compares models with at least 5 completed jobs in both windows; alert before warning before info', () => {
    const baseline = daysOf([
      ...facts(5, 1, { model: a, annotationCount: 1 }), // rejection 0.2, annotations 1/job
      ...facts(10, 0, { model: b }),
    ]);
    const current = daysOf([
      ...facts(5, 3, { model: a, annotationCount: 2 }, 1), // rejection 0.6, modification 0.2, annotations 2/job
      ...facts(4, 4, { model: b }), // only 4 completed jobs: no signal
    ]);
    const signals = computeDrift(baseline, current);
    expect(signals.map((s) => [s.provider, s.metric, s.severity, Number(s.delta.toFixed(10))])).toEqual([
      ['acme', 'annotationFrequency', 'alert', 1],
      ['acme', 'rejectionRate', 'alert', 0.4],
      ['acme', 'modificationRate', 'alert', 0.2],
    ]);
    expect(signals[1]!.baseline).toEqual({
      completedJobs: 5,
      rejectionRate: 0.2,
      modificationRate: 0,
      annotationFrequency: 1,
    });
  });

  it('grades the change: rejection +0.05 is a warning, +0.04 info', () => {
    const base = daysOf(facts(100, 10, { model: a }));
    const warn = computeDrift(base, daysOf(facts(100, 15, { model: a })));
    expect(warn.find((s) => s.metric === 'rejectionRate')!.severity).toBe('warning');
    const info = computeDrift(base, daysOf(facts(100, 14, { model: a })));
    expect(info.find((s) => s.metric === 'rejectionRate')!.severity).toBe('info');
    expect(info.map((s) => s.severity)).toEqual(['info', 'info', 'info']);
  });

  it('gives no signal with 4 jobs in the baseline window', () => {
    expect(computeDrift(daysOf(facts(4, 0, { model: a })), daysOf(facts(5, 5, { model: a })))).toEqual([]);
    expect(computeDrift(new Map(), new Map())).toEqual([]);
  });
});

describe('weeklyTimeline', () => {
  it('buckets by ISO week of completion, oldest first, empty weeks included', () => {
    const model = { provider: 'acme', version: '1' };
    const days = daysOf([
      ...facts(2, 1, { model, completedAt: '2026-03-02T09:00:00.000Z', annotationCount: 3 }), // Monday
      ...facts(1, 0, { model, completedAt: '2026-03-08T23:59:59.999Z' }), // Sunday, same week
      ...facts(1, 0, { model: { provider: 'other', version: '1' }, completedAt: '2026-03-03T00:00:00.000Z' }),
      ...facts(1, 0, { model, completedAt: '2026-03-16T00:00:00.000Z' }, 1),
    ]);
    const range = { from: t('2026-03-04T00:00:00.000Z'), to: t('2026-03-17T12:00:00.000Z') };
    const points = weeklyTimeline(days, range, 'acme', '1');
    expect(
      points.map((p) => [
        p.weekStart.slice(0, 10),
        p.completedJobs,
        p.rejectionRate,
        p.modificationRate,
        p.annotationCount,
      ]),
    ).toEqual([
      ['2026-03-02', 3, 1 / 3, 0, 6],
      ['2026-03-09', 0, null, null, 0],
      ['2026-03-16', 1, 0, 1, 0],
    ]);
    expect(points[0]!.periodFrom).toBe('2026-03-04T00:00:00.000Z');
    expect(points[2]!.periodTo).toBe('2026-03-17T12:00:00.000Z');
  });
});

describe('computeConsumerDuty', () => {
  const thresholds = {
    rejectionRateWarning: 0.15,
    rejectionRateAlert: 0.25,
    slaComplianceWarning: 0.95,
    slaComplianceAlert: 0.9,
    readCompletionWarning: 0.8,
  };

  it('breaks outcomes down by reviewer, document type and month, with SLA compliance and states', () => {
    const days = daysOf([
      ...facts(6, 1, { reviewerId: 'usr_a' }, 2),
      ...facts(3, 1, { reviewerId: 'usr_b', documentType: 'PENSION_TRANSFER', slaBreached: true }),
      ...facts(1, 0, { reviewerId: 'usr_b', completedAt: '2026-04-01T00:00:00.000Z' }),
    ]);
    const period = { from: t('2026-03-01T00:00:00.000Z'), to: t('2026-04-30T23:59:59.999Z') };
    const result = computeConsumerDuty(days, period, thresholds);
    expect(result.outcomes).toEqual({
      total: 10,
      approved: 6,
      approvedWithModifications: 2,
      rejected: 2,
      approvalRate: 0.6,
      modificationRate: 0.2,
      rejectionRate: 0.2,
    });
    expect(result.slaCompliance).toEqual({ completed: 10, withinSla: 7, breached: 3, complianceRate: 0.7 });
    expect(result.states).toEqual({ rejectionRate: 'warning', slaCompliance: 'alert' });
    expect(result.reviewerWorkload.map((w) => [w.reviewerId, w.total, w.rejected, w.breached])).toEqual([
      ['usr_a', 6, 1, 0],
      ['usr_b', 4, 1, 3],
    ]);
    expect(result.documentTypes.map((d) => [d.documentType, d.total])).toEqual([
      ['SUITABILITY_REPORT', 7],
      ['PENSION_TRANSFER', 3],
    ]);
    expect(result.monthly.map((m) => [m.month, m.total, m.breached, m.slaComplianceRate])).toEqual([
      ['2026-03', 9, 3, 6 / 9],
      ['2026-04', 1, 0, 1],
    ]);
  });

  it('reports no_data rather than ok for an empty period', () => {
    const result = computeConsumerDuty(new Map(), march, thresholds);
    expect(result.states).toEqual({ rejectionRate: 'no_data', slaCompliance: 'no_data' });
    expect(result.outcomes.rejectionRate).toBeNull();
  });
});

describe('summariseModels', () => {
  it('counts every job declaring a model, rates over completed ones', () => {
    const model = { provider: 'acme', version: '1' };
    const summaries = summariseModels([
      {
        status: 'APPROVED',
        outcome: 'APPROVED',
        submittedAt: '2026-03-01T00:00:00.000Z',
        model,
        annotationCount: 2,
      },
      { status: 'REJECTED', outcome: 'REJECTED', submittedAt: '2026-03-03T00:00:00.000Z', model },
      { status: 'QUEUED', outcome: null, submittedAt: '2026-03-02T00:00:00.000Z', model },
      { status: 'CANCELLED', outcome: null, submittedAt: '2026-03-02T00:00:00.000Z', model },
      { status: 'APPROVED', outcome: 'APPROVED', submittedAt: '2026-03-02T00:00:00.000Z', model: null },
    ]);
    expect(summaries).toEqual([
      {
        provider: 'acme',
        version: '1',
        jobCount: 4,
        completedJobs: 2,
        openJobs: 1,
        cancelledJobs: 1,
        approved: 1,
        modified: 0,
        rejected: 1,
        approvalRate: 0.5,
        modificationRate: 0,
        rejectionRate: 0.5,
        annotationCount: 2,
        firstSeenAt: '2026-03-01T00:00:00.000Z',
        lastSeenAt: '2026-03-03T00:00:00.000Z',
      },
    ]);
  });
});

describe('reporting subscriber', () => {
  it('sends exactly the three outcome events to the reporting queue', async () => {
    const { RECORD_SUBSCRIBERS } = await import('../../../../shared/workers/record-subscribers.js');
    const { LEDGER_EVENT_TYPES } = await import('../../../../shared/ledger/event-types.js');
    const reporting = RECORD_SUBSCRIBERS.filter((s) => s.queue === 'reporting');
    expect(reporting).toHaveLength(1);
    expect(LEDGER_EVENT_TYPES.filter((type) => reporting[0]!.wants(type))).toEqual([
      'DOCUMENT_APPROVED',
      'DOCUMENT_MODIFIED',
      'DOCUMENT_REJECTED',
    ]);
  });
});
