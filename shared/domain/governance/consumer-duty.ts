/**
 * Consumer Duty metrics from the aggregates of a period: outcomes, SLA compliance, reviewer workload,
 * document types, monthly buckets, and warning/alert states from the firm's thresholds. Rejection rate is
 * worse when higher (state alert at >= alert threshold, warning at >= warning threshold); SLA compliance is
 * worse when lower (alert at <= alert threshold, warning at <= warning threshold). No completed job: state
 * no_data.
 */
import { groupsUnder, sumCounters, tallyOf, type Counters, type DayCounters } from './aggregates.js';
import { monthsOf, type Period } from './periods.js';
import { rate, reaches } from './stats.js';

export type MetricState = 'ok' | 'warning' | 'alert' | 'no_data';

export interface ConsumerDutyThresholds {
  rejectionRateWarning: number;
  rejectionRateAlert: number;
  slaComplianceWarning: number;
  slaComplianceAlert: number;
  readCompletionWarning: number;
}

export interface OutcomeBreakdown {
  total: number;
  approved: number;
  approvedWithModifications: number;
  rejected: number;
  approvalRate: number | null;
  modificationRate: number | null;
  rejectionRate: number | null;
}

export interface SlaCompliance {
  completed: number;
  withinSla: number;
  breached: number;
  complianceRate: number | null;
}

export function outcomesOf(counters: Counters, group: readonly string[] = ['all']): OutcomeBreakdown {
  const t = tallyOf(counters, group);
  return {
    total: t.total,
    approved: t.approved,
    approvedWithModifications: t.modified,
    rejected: t.rejected,
    approvalRate: rate(t.approved, t.total),
    modificationRate: rate(t.modified, t.total),
    rejectionRate: rate(t.rejected, t.total),
  };
}

export function slaOf(counters: Counters, group: readonly string[] = ['all']): SlaCompliance {
  const t = tallyOf(counters, group);
  return {
    completed: t.slaMet + t.slaBreached,
    withinSla: t.slaMet,
    breached: t.slaBreached,
    complianceRate: rate(t.slaMet, t.slaMet + t.slaBreached),
  };
}

export function rejectionState(value: number | null, t: ConsumerDutyThresholds): MetricState {
  if (value === null) return 'no_data';
  return reaches(value, t.rejectionRateAlert)
    ? 'alert'
    : reaches(value, t.rejectionRateWarning)
      ? 'warning'
      : 'ok';
}

export function slaState(value: number | null, t: ConsumerDutyThresholds): MetricState {
  if (value === null) return 'no_data';
  return reaches(t.slaComplianceAlert, value)
    ? 'alert'
    : reaches(t.slaComplianceWarning, value)
      ? 'warning'
      : 'ok';
}

export interface ReviewerWorkload extends OutcomeBreakdown {
  reviewerId: string;
  withinSla: number;
  breached: number;
}

export interface DocumentTypeBreakdown extends OutcomeBreakdown {
  documentType: string;
}

export interface MonthlyBucket extends OutcomeBreakdown {
  month: string;
  withinSla: number;
  breached: number;
  slaComplianceRate: number | null;
}

export interface ConsumerDutyComputation {
  outcomes: OutcomeBreakdown;
  slaCompliance: SlaCompliance;
  reviewerWorkload: ReviewerWorkload[];
  documentTypes: DocumentTypeBreakdown[];
  monthly: MonthlyBucket[];
  states: { rejectionRate: MetricState; slaCompliance: MetricState };
}

export function computeConsumerDuty(
  days: DayCounters,
  period: Period,
  thresholds: ConsumerDutyThresholds,
): ConsumerDutyComputation {
  const counters = sumCounters(days.values());
  const outcomes = outcomesOf(counters);
  const slaCompliance = slaOf(counters);
  const reviewerWorkload = groupsUnder(counters, ['reviewer'], 2)
    .map((group) => {
      const sla = slaOf(counters, group);
      return {
        reviewerId: group[1]!,
        ...outcomesOf(counters, group),
        withinSla: sla.withinSla,
        breached: sla.breached,
      };
    })
    .sort((a, b) => b.total - a.total || a.reviewerId.localeCompare(b.reviewerId));
  const documentTypes = groupsUnder(counters, ['docType'], 2)
    .map((group) => ({ documentType: group[1]!, ...outcomesOf(counters, group) }))
    .sort((a, b) => b.total - a.total || a.documentType.localeCompare(b.documentType));
  const byMonth = new Map<string, Counters[]>();
  for (const [day, dayCounters] of days) {
    const month = day.slice(0, 7);
    byMonth.set(month, [...(byMonth.get(month) ?? []), dayCounters]);
  }
  const monthly = monthsOf(period).map((month) => {
    const monthCounters = sumCounters(byMonth.get(month) ?? []);
    const sla = slaOf(monthCounters);
    return {
      month,
      ...outcomesOf(monthCounters),
      withinSla: sla.withinSla,
      breached: sla.breached,
      slaComplianceRate: sla.complianceRate,
    };
  });
  return {
    outcomes,
    slaCompliance,
    reviewerWorkload,
    documentTypes,
    monthly,
    states: {
      rejectionRate: rejectionState(outcomes.rejectionRate, thresholds),
      slaCompliance: slaState(slaCompliance.complianceRate, thresholds),
    },
  };
}
