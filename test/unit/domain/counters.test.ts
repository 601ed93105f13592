import {
  counterDelta,
  incidentContributions,
  jobContributions,
  SHARDS,
  shardOf,
  sumCounters,
  type JobCounterView,
} from '../../../shared/domain/counters/contributions.js';
import {
  incidentStatsOf,
  modelsOf,
  modelSummaryOf,
  vulnerabilityCountsOf,
} from '../../../shared/domain/counters/reports.js';
import { incidentStats, type IncidentFacts } from '../../../shared/domain/governance/incidents.js';
import { summariseModels } from '../../../shared/domain/governance/models.js';

const STATUSES = [
  'QUEUED',
  'ASSIGNED',
  'IN_REVIEW',
  'ESCALATED',
  'APPROVED',
  'MODIFIED',
  'REJECTED',
  'CANCELLED',
];
const OUTCOME: Record<string, string> = {
  APPROVED: 'APPROVED',
  MODIFIED: 'APPROVED_WITH_MODIFICATIONS',
  REJECTED: 'REJECTED',
};
const MODELS = [null, { provider: 'acme', version: '1' }, { provider: 'b#x', version: 'v/2' }];
const FLAGS = [[], ['health'], ['health', 'capability'], ['resilience']];

/** A deterministic spread of jobs over every status, model, flag set and senior sign-off. */
const jobs = Array.from({ length: 96 }, (_, i) => {
  const status = STATUSES[i % STATUSES.length]!;
  return {
    status,
    outcome: OUTCOME[status] ?? null,
    aiContext: MODELS[i % MODELS.length] ? { model: MODELS[i % MODELS.length] } : null,
    vulnerabilityFlags: FLAGS[i % FLAGS.length]!,
    requiresSeniorSignOff: i % 5 === 0 || FLAGS[i % FLAGS.length]!.length > 0,
    annotationCount: i % 3,
    submittedAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
  };
});

describe('counter contributions', () => {
  it('a job moving is its delta: applying every move gives the contributions of the final state', () => {
    const queued: JobCounterView = { ...jobs[1]!, status: 'QUEUED', outcome: null };
    const done: JobCounterView = { ...queued, status: 'REJECTED', outcome: 'REJECTED', annotationCount: 2 };
    const total = sumCounters([
      counterDelta(null, jobContributions(queued)),
      counterDelta(jobContributions(queued), jobContributions(done)),
    ]);
    // A counter at 0 is the same as an absent one.
    expect(new Map([...total].filter(([, v]) => v !== 0))).toEqual(jobContributions(done));
  });

  it('a move that changes nothing counted has an empty delta', () => {
    const a = jobs[0]!;
    expect(counterDelta(jobContributions(a), jobContributions({ ...a, status: 'ESCALATED' })).size).toBe(0);
  });

  it('puts an entity always on the same shard, within the family', () => {
    for (const id of ['job_01', 'job_02', 'rec_x', 'inc_y']) {
      expect(shardOf('jobs', id)).toBe(shardOf('jobs', id));
      expect(shardOf('jobs', id)).toBeGreaterThanOrEqual(0);
      expect(shardOf('jobs', id)).toBeLessThan(SHARDS.jobs);
    }
  });
});

describe('reports from counters equal the reports over the items', () => {
  const counters = sumCounters(jobs.map(jobContributions));

  it('models', () => {
    const fromItems = summariseModels(
      jobs.map((j) => ({
        ...j,
        model: (j.aiContext?.model as { provider: string; version: string }) ?? null,
      })),
    );
    const fromCounters = modelsOf(counters).map((model) => {
      const summary = fromItems.find((s) => s.provider === model.provider && s.version === model.version)!;
      return modelSummaryOf(counters, model, summary);
    });
    expect(fromCounters).toEqual(fromItems);
  });

  it('vulnerability', () => {
    const flagged = jobs.filter((j) => j.vulnerabilityFlags.length > 0);
    const open = ['QUEUED', 'ASSIGNED', 'IN_REVIEW', 'ESCALATED'];
    const counts = vulnerabilityCountsOf(counters);
    expect(counts.totalFlaggedJobs).toBe(flagged.length);
    expect(counts.totalUnflaggedJobs).toBe(jobs.length - flagged.length);
    expect(counts.awaitingSeniorSignOff).toBe(
      jobs.filter((j) => open.includes(j.status) && j.requiresSeniorSignOff).length,
    );
    const health = flagged.filter((j) => j.vulnerabilityFlags.includes('health'));
    const healthDone = health.filter((j) => j.outcome !== null);
    expect(counts.flagBreakdown.find((f) => f.flag === 'health')).toEqual({
      flag: 'health',
      totalJobs: health.length,
      openJobs: health.filter((j) => open.includes(j.status)).length,
      completedJobs: healthDone.length,
      approved: healthDone.filter((j) => j.outcome === 'APPROVED').length,
      approvedWithModifications: healthDone.filter((j) => j.outcome === 'APPROVED_WITH_MODIFICATIONS').length,
      rejected: healthDone.filter((j) => j.outcome === 'REJECTED').length,
      rejectionRate: healthDone.filter((j) => j.outcome === 'REJECTED').length / healthDone.length,
    });
  });

  it('incident statistics, trend months included', () => {
    const now = new Date('2026-06-15T12:00:00.000Z');
    const incidents: IncidentFacts[] = Array.from({ length: 40 }, (_, i) => ({
      severity: (['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const)[i % 4]!,
      category: (['AI_MODEL', 'SECURITY', 'OTHER'] as const)[i % 3]!,
      status: (['OPEN', 'INVESTIGATING', 'REMEDIATING', 'RESOLVED', 'CLOSED'] as const)[i % 5]!,
      reportedAt: new Date(Date.UTC(2025, i % 14, 3)).toISOString(),
      resolvedAt: i % 5 >= 3 ? new Date(Date.UTC(2025, (i % 14) + 1, 9)).toISOString() : null,
    }));
    const fromCounters = incidentStatsOf(sumCounters(incidents.map(incidentContributions)), now);
    expect(fromCounters).toEqual(incidentStats(incidents, now));
  });
});
