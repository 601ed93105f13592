/**
 * Bias (fairness) report over client segments. Method (docs/architecture.md, "Governance reports"):
 *
 * - Per dimension (a key of clientSegments), the baseline is the rejection rate of all completed jobs in the
 *   period that carry the dimension; each segment (a value) is compared with it.
 * - Every rate comes with a 95 % Wilson score interval.
 * - Disparate-impact ratio: the segment's favourable-outcome rate (approved, with or without modifications)
 *   divided by that of the most favoured eligible segment of the dimension. The four-fifths rule holds when
 *   the ratio is at least 0.8.
 * - No flag (and no four-fifths verdict) for a segment with fewer than MIN_SEGMENT_SIZE jobs.
 * - Divergence flag: |rate - baseline| >= biasWarningThreshold (warning) or >= biasAlertThreshold (alert).
 * - Absolute flag: rate > rejectionThreshold (query, default 0.3); alert when the rate also reaches the
 *   firm's biasAbsoluteRejectionThreshold, otherwise warning.
 */
import { groupsUnder, tallyOf, type Counters, type DayCounters, sumCounters } from './aggregates.js';
import { monthsOf, type Period } from './periods.js';
import { rate, reaches, wilsonInterval, type Interval } from './stats.js';

/** Below this many completed jobs a segment is reported but never flagged. */
export const MIN_SEGMENT_SIZE = 20;
/** The four-fifths (80 %) rule of adverse impact. */
export const FOUR_FIFTHS = 0.8;
export const DEFAULT_REJECTION_THRESHOLD = 0.3;

export interface BiasThresholds {
  warning: number;
  alert: number;
  absoluteAlert: number;
}

export interface SegmentStats {
  value: string;
  total: number;
  rejected: number;
  rejectionRate: number | null;
  rejectionRateInterval: Interval | null;
  favourableRate: number | null;
  /** rejectionRate - baseline rejection rate of the dimension. */
  deltaFromBaseline: number | null;
  /** Whether the baseline lies outside the segment's interval. */
  significant: boolean;
  disparateImpactRatio: number | null;
  /** null when the segment (or no reference segment) is large enough for a verdict. */
  fourFifthsRulePasses: boolean | null;
  /** total >= MIN_SEGMENT_SIZE: flags and the four-fifths verdict apply. */
  eligible: boolean;
}

export interface DimensionStats {
  dimension: string;
  total: number;
  rejected: number;
  baselineRejectionRate: number | null;
  baselineInterval: Interval | null;
  referenceSegment: string | null;
  segments: SegmentStats[];
  fourFifthsViolations: string[];
}

export interface BiasFlag {
  kind: 'divergence' | 'absolute';
  severity: 'warning' | 'alert';
  dimension: string;
  segment: string;
  rejectionRate: number;
  baselineRejectionRate: number | null;
  deltaFromBaseline: number | null;
  threshold: number;
  sampleSize: number;
  rejectionRateInterval: Interval | null;
  message: string;
}

export interface BiasTrendPoint {
  month: string;
  total: number;
  rejected: number;
  rejectionRate: number | null;
}

export interface BiasComputation {
  totalRecords: number;
  overallRejectionRate: number | null;
  dimensions: DimensionStats[];
  flags: BiasFlag[];
  trend: BiasTrendPoint[];
}

export function computeBias(
  days: DayCounters,
  period: Period,
  thresholds: BiasThresholds,
  rejectionThreshold: number,
): BiasComputation {
  const counters = sumCounters(days.values());
  const all = tallyOf(counters, ['all']);
  const dimensions = dimensionStats(counters);
  const flags: BiasFlag[] = [];
  for (const dimension of dimensions) {
    for (const segment of dimension.segments) {
      if (!segment.eligible || segment.rejectionRate === null) continue;
      const base = {
        dimension: dimension.dimension,
        segment: segment.value,
        rejectionRate: segment.rejectionRate,
        baselineRejectionRate: dimension.baselineRejectionRate,
        deltaFromBaseline: segment.deltaFromBaseline,
        sampleSize: segment.total,
        rejectionRateInterval: segment.rejectionRateInterval,
      };
      const delta = Math.abs(segment.deltaFromBaseline ?? 0);
      if (reaches(delta, thresholds.warning)) {
        const severity = reaches(delta, thresholds.alert) ? 'alert' : 'warning';
        flags.push({
          kind: 'divergence',
          severity,
          threshold: severity === 'alert' ? thresholds.alert : thresholds.warning,
          message: `${dimension.dimension}=${segment.value}: rejection rate ${pct(segment.rejectionRate)} is ${pct(delta)} ${(segment.deltaFromBaseline ?? 0) > 0 ? 'above' : 'below'} the dimension baseline ${pct(dimension.baselineRejectionRate ?? 0)}`,
          ...base,
        });
      }
      if (segment.rejectionRate > rejectionThreshold) {
        const severity = reaches(segment.rejectionRate, thresholds.absoluteAlert) ? 'alert' : 'warning';
        flags.push({
          kind: 'absolute',
          severity,
          threshold: rejectionThreshold,
          message: `${dimension.dimension}=${segment.value}: rejection rate ${pct(segment.rejectionRate)} exceeds ${pct(rejectionThreshold)}`,
          ...base,
        });
      }
    }
  }
  flags.sort(
    (a, b) =>
      severityRank(b.severity) - severityRank(a.severity) ||
      b.rejectionRate - a.rejectionRate ||
      a.dimension.localeCompare(b.dimension) ||
      a.segment.localeCompare(b.segment) ||
      a.kind.localeCompare(b.kind),
  );
  return {
    totalRecords: all.total,
    overallRejectionRate: rate(all.rejected, all.total),
    dimensions,
    flags,
    trend: monthlyTrend(days, period),
  };
}

const severityRank = (severity: 'warning' | 'alert') => (severity === 'alert' ? 2 : 1);
const pct = (value: number) => `${(value * 100).toFixed(1)}%`;

export function dimensionStats(counters: Counters): DimensionStats[] {
  const byDimension = new Map<string, string[]>();
  for (const [, dimension, value] of groupsUnder(counters, ['seg'], 3)) {
    const values = byDimension.get(dimension!) ?? [];
    values.push(value!);
    byDimension.set(dimension!, values);
  }
  return [...byDimension.entries()].map(([dimension, values]) => {
    const tallies = values.map((value) => ({ value, tally: tallyOf(counters, ['seg', dimension, value]) }));
    const total = tallies.reduce((sum, t) => sum + t.tally.total, 0);
    const rejected = tallies.reduce((sum, t) => sum + t.tally.rejected, 0);
    const baseline = rate(rejected, total);
    const favourable = (t: (typeof tallies)[number]) =>
      rate(t.tally.approved + t.tally.modified, t.tally.total);
    const eligible = tallies.filter((t) => t.tally.total >= MIN_SEGMENT_SIZE);
    const reference = eligible.reduce<(typeof tallies)[number] | null>(
      (best, t) => (best === null || (favourable(t) ?? 0) > (favourable(best) ?? 0) ? t : best),
      null,
    );
    const referenceRate = reference ? favourable(reference) : null;
    const segments = tallies.map(({ value, tally }): SegmentStats => {
      const rejectionRate = rate(tally.rejected, tally.total);
      const interval = wilsonInterval(tally.rejected, tally.total);
      const favourableRate = rate(tally.approved + tally.modified, tally.total);
      const isEligible = tally.total >= MIN_SEGMENT_SIZE;
      const ratio =
        isEligible && favourableRate !== null && referenceRate ? favourableRate / referenceRate : null;
      return {
        value,
        total: tally.total,
        rejected: tally.rejected,
        rejectionRate,
        rejectionRateInterval: interval,
        favourableRate,
        deltaFromBaseline: rejectionRate !== null && baseline !== null ? rejectionRate - baseline : null,
        significant:
          interval !== null && baseline !== null && (baseline < interval.lower || baseline > interval.upper),
        disparateImpactRatio: ratio,
        fourFifthsRulePasses: ratio === null ? null : reaches(ratio, FOUR_FIFTHS),
        eligible: isEligible,
      };
    });
    return {
      dimension,
      total,
      rejected,
      baselineRejectionRate: baseline,
      baselineInterval: wilsonInterval(rejected, total),
      referenceSegment: reference?.value ?? null,
      segments,
      fourFifthsViolations: segments.filter((s) => s.fourFifthsRulePasses === false).map((s) => s.value),
    };
  });
}

/** One point per calendar month the period touches (oldest first), empty months included. */
export function monthlyTrend(days: DayCounters, period: Period): BiasTrendPoint[] {
  const byMonth = new Map<string, Counters[]>();
  for (const [day, counters] of days) {
    const month = day.slice(0, 7);
    byMonth.set(month, [...(byMonth.get(month) ?? []), counters]);
  }
  return monthsOf(period).map((month) => {
    const tally = tallyOf(sumCounters(byMonth.get(month) ?? []), ['all']);
    return {
      month,
      total: tally.total,
      rejected: tally.rejected,
      rejectionRate: rate(tally.rejected, tally.total),
    };
  });
}
