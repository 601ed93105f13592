/**
 * AI model reports: usage summary, drift between a baseline and a current window, weekly timeline.
 * Drift method (docs/architecture.md, "Governance reports"): per provider/version, compare the current
 * window with the baseline window just before it on three metrics, each as an absolute difference:
 * rejection rate, modification rate (APPROVED_WITH_MODIFICATIONS share) and annotation frequency
 * (reviewer annotations per completed job). A model is compared only with at least MIN_DRIFT_JOBS completed
 * jobs in both windows; each metric of such a model is one signal, whose severity is alert, warning or
 * info by the thresholds below.
 */
import { groupsUnder, tallyOf, sumCounters, type DayCounters, type Tally } from './aggregates.js';
import { DAY_MS, startOfIsoWeek, type Period } from './periods.js';
import { rate, reaches } from './stats.js';

export const MIN_DRIFT_JOBS = 5;
export const DRIFT_WINDOW_DEFAULTS = { baselineDays: 90, currentDays: 30 } as const;
export const DRIFT_WINDOW_BOUNDS = { min: 1, max: 730 } as const;

export type DriftMetric = 'rejectionRate' | 'modificationRate' | 'annotationFrequency';
export type Severity = 'alert' | 'warning' | 'info';

/** Absolute change of each metric at which a signal becomes a warning or an alert. */
export const DRIFT_THRESHOLDS: Readonly<Record<DriftMetric, { warning: number; alert: number }>> = {
  rejectionRate: { warning: 0.05, alert: 0.1 },
  modificationRate: { warning: 0.1, alert: 0.2 },
  annotationFrequency: { warning: 0.5, alert: 1 },
};

export interface WindowMetrics {
  completedJobs: number;
  rejectionRate: number | null;
  modificationRate: number | null;
  annotationFrequency: number | null;
}

export interface DriftSignal {
  provider: string;
  version: string;
  metric: DriftMetric;
  severity: Severity;
  baselineValue: number;
  currentValue: number;
  delta: number;
  baseline: WindowMetrics;
  current: WindowMetrics;
  message: string;
}

export function windowMetrics(tally: Tally): WindowMetrics {
  return {
    completedJobs: tally.total,
    rejectionRate: rate(tally.rejected, tally.total),
    modificationRate: rate(tally.modified, tally.total),
    annotationFrequency: rate(tally.annotations, tally.total),
  };
}

const RANK: Record<Severity, number> = { alert: 3, warning: 2, info: 1 };

export function severityOf(metric: DriftMetric, delta: number): Severity {
  const { warning, alert } = DRIFT_THRESHOLDS[metric];
  const size = Math.abs(delta);
  return reaches(size, alert) ? 'alert' : reaches(size, warning) ? 'warning' : 'info';
}

/** Drift signals, alert first, then warning, then info; larger changes first within a severity. */
export function computeDrift(baselineDays: DayCounters, currentDays: DayCounters): DriftSignal[] {
  const baseline = sumCounters(baselineDays.values());
  const current = sumCounters(currentDays.values());
  const signals: DriftSignal[] = [];
  for (const [, provider, version] of groupsUnder(current, ['model'], 3)) {
    const group = ['model', provider!, version!];
    const before = windowMetrics(tallyOf(baseline, group));
    const now = windowMetrics(tallyOf(current, group));
    if (before.completedJobs < MIN_DRIFT_JOBS || now.completedJobs < MIN_DRIFT_JOBS) continue;
    for (const metric of Object.keys(DRIFT_THRESHOLDS) as DriftMetric[]) {
      const baselineValue = before[metric] ?? 0;
      const currentValue = now[metric] ?? 0;
      const delta = currentValue - baselineValue;
      const severity = severityOf(metric, delta);
      signals.push({
        provider: provider!,
        version: version!,
        metric,
        severity,
        baselineValue,
        currentValue,
        delta,
        baseline: before,
        current: now,
        message: `${provider} ${version}: ${metric} ${delta >= 0 ? 'rose' : 'fell'} from ${round(baselineValue)} to ${round(currentValue)}`,
      });
    }
  }
  return signals.sort(
    (a, b) =>
      RANK[b.severity] - RANK[a.severity] ||
      Math.abs(b.delta) - Math.abs(a.delta) ||
      a.provider.localeCompare(b.provider) ||
      a.version.localeCompare(b.version) ||
      a.metric.localeCompare(b.metric),
  );
}

const round = (value: number) => Math.round(value * 1000) / 1000;

export interface TimelinePoint {
  /** Monday 00:00 UTC of the ISO week (clipped to the range's start for the first point). */
  weekStart: string;
  periodFrom: string;
  periodTo: string;
  completedJobs: number;
  approvalRate: number | null;
  modificationRate: number | null;
  rejectionRate: number | null;
  annotationCount: number;
  annotationFrequency: number | null;
}

/** One point per ISO week (Monday to Sunday, UTC) the range touches, oldest first, empty weeks included. */
export function weeklyTimeline(
  days: DayCounters,
  range: Period,
  provider: string,
  version: string,
): TimelinePoint[] {
  const group = ['model', provider, version];
  const points: TimelinePoint[] = [];
  for (let week = startOfIsoWeek(range.from); week <= range.to; week += 7 * DAY_MS) {
    const weekEnd = week + 7 * DAY_MS - 1;
    const inWeek = [...days.entries()]
      .filter(([day]) => {
        const start = Date.parse(`${day}T00:00:00.000Z`);
        return start >= week && start <= weekEnd;
      })
      .map(([, counters]) => counters);
    const tally = tallyOf(sumCounters(inWeek), group);
    points.push({
      weekStart: new Date(week).toISOString(),
      periodFrom: new Date(Math.max(week, range.from)).toISOString(),
      periodTo: new Date(Math.min(weekEnd, range.to)).toISOString(),
      completedJobs: tally.total,
      approvalRate: rate(tally.approved, tally.total),
      modificationRate: rate(tally.modified, tally.total),
      rejectionRate: rate(tally.rejected, tally.total),
      annotationCount: tally.annotations,
      annotationFrequency: rate(tally.annotations, tally.total),
    });
  }
  return points;
}

/** The fields of a job the model summary reads. */
export interface ModelUsageJob {
  status: string;
  outcome: string | null;
  submittedAt: string;
  annotationCount?: number;
  model: { provider: string; version: string } | null;
}

export interface ModelSummary {
  provider: string;
  version: string;
  jobCount: number;
  completedJobs: number;
  openJobs: number;
  cancelledJobs: number;
  approved: number;
  modified: number;
  rejected: number;
  approvalRate: number | null;
  modificationRate: number | null;
  rejectionRate: number | null;
  annotationCount: number;
  firstSeenAt: string;
  lastSeenAt: string;
}

/** One summary per provider/version seen on any job (any status), sorted by provider then version. */
export function summariseModels(jobs: readonly ModelUsageJob[]): ModelSummary[] {
  const byModel = new Map<string, ModelSummary>();
  for (const job of jobs) {
    if (!job.model) continue;
    const key = JSON.stringify([job.model.provider, job.model.version]);
    let summary = byModel.get(key);
    if (!summary) {
      summary = {
        provider: job.model.provider,
        version: job.model.version,
        jobCount: 0,
        completedJobs: 0,
        openJobs: 0,
        cancelledJobs: 0,
        approved: 0,
        modified: 0,
        rejected: 0,
        approvalRate: null,
        modificationRate: null,
        rejectionRate: null,
        annotationCount: 0,
        firstSeenAt: job.submittedAt,
        lastSeenAt: job.submittedAt,
      };
      byModel.set(key, summary);
    }
    summary.jobCount += 1;
    if (job.submittedAt < summary.firstSeenAt) summary.firstSeenAt = job.submittedAt;
    if (job.submittedAt > summary.lastSeenAt) summary.lastSeenAt = job.submittedAt;
    const completed = ['APPROVED', 'MODIFIED', 'REJECTED'].includes(job.status) && job.outcome !== null;
    if (completed) {
      summary.completedJobs += 1;
      summary.annotationCount += job.annotationCount ?? 0;
      if (job.outcome === 'APPROVED') summary.approved += 1;
      else if (job.outcome === 'APPROVED_WITH_MODIFICATIONS') summary.modified += 1;
      else if (job.outcome === 'REJECTED') summary.rejected += 1;
    } else if (job.status === 'CANCELLED') summary.cancelledJobs += 1;
    else summary.openJobs += 1;
  }
  return [...byModel.values()]
    .map((s) => ({
      ...s,
      approvalRate: rate(s.approved, s.completedJobs),
      modificationRate: rate(s.modified, s.completedJobs),
      rejectionRate: rate(s.rejected, s.completedJobs),
    }))
    .sort((a, b) => a.provider.localeCompare(b.provider) || a.version.localeCompare(b.version));
}
