/**
 * The reports that answer from firm counters (issue 14): the model registry, the vulnerability counts and the
 * incident statistics, computed from a family's summed counters (shared/domain/counters/contributions.ts).
 * Pure: the service adds what counters cannot hold (first/last sighting, recent flagged jobs, users).
 */
import { INCIDENT_CATEGORIES, trailingMonths, type IncidentStats } from '../governance/incidents.js';
import type { ModelSummary } from '../governance/models.js';
import { rate } from '../governance/stats.js';
import { VULNERABILITY_FLAGS } from '../review/jobs.js';
import { valueOf, type Counters } from './contributions.js';

/** Every provider/version with a `jobs` counter above zero, sorted by provider then version. */
export function modelsOf(counters: Counters): { provider: string; version: string }[] {
  const models: { provider: string; version: string }[] = [];
  for (const [name, value] of counters) {
    const parts = JSON.parse(name) as string[];
    if (parts.length === 4 && parts[0] === 'model' && parts[3] === 'jobs' && value > 0)
      models.push({ provider: parts[1]!, version: parts[2]! });
  }
  return models.sort((a, b) => a.provider.localeCompare(b.provider) || a.version.localeCompare(b.version));
}

/** A model's usage summary from the `jobs` counters, with its sightings given. */
export function modelSummaryOf(
  counters: Counters,
  model: { provider: string; version: string },
  seen: { firstSeenAt: string; lastSeenAt: string },
): ModelSummary {
  const m = ['model', model.provider, model.version];
  const completedJobs = valueOf(counters, ...m, 'completed');
  const approved = valueOf(counters, ...m, 'o', 'APPROVED');
  const modified = valueOf(counters, ...m, 'o', 'APPROVED_WITH_MODIFICATIONS');
  const rejected = valueOf(counters, ...m, 'o', 'REJECTED');
  return {
    provider: model.provider,
    version: model.version,
    jobCount: valueOf(counters, ...m, 'jobs'),
    completedJobs,
    openJobs: valueOf(counters, ...m, 'open'),
    cancelledJobs: valueOf(counters, ...m, 'cancelled'),
    approved,
    modified,
    rejected,
    approvalRate: rate(approved, completedJobs),
    modificationRate: rate(modified, completedJobs),
    rejectionRate: rate(rejected, completedJobs),
    annotationCount: valueOf(counters, ...m, 'ann'),
    firstSeenAt: seen.firstSeenAt,
    lastSeenAt: seen.lastSeenAt,
  };
}

/** The vulnerability report's counts (everything but the users and the recent flagged jobs). */
export function vulnerabilityCountsOf(counters: Counters) {
  return {
    totalFlaggedJobs: valueOf(counters, 'vuln', 'flagged'),
    totalUnflaggedJobs: valueOf(counters, 'vuln', 'unflagged'),
    flagBreakdown: VULNERABILITY_FLAGS.map((flag) => {
      const f = ['vuln', 'flag', flag];
      const completedJobs = valueOf(counters, ...f, 'completed');
      const rejected = valueOf(counters, ...f, 'o', 'REJECTED');
      return {
        flag,
        totalJobs: valueOf(counters, ...f, 'total'),
        openJobs: valueOf(counters, ...f, 'open'),
        completedJobs,
        approved: valueOf(counters, ...f, 'o', 'APPROVED'),
        approvedWithModifications: valueOf(counters, ...f, 'o', 'APPROVED_WITH_MODIFICATIONS'),
        rejected,
        rejectionRate: completedJobs > 0 ? rejected / completedJobs : null,
      };
    }),
    awaitingSeniorSignOff: valueOf(counters, 'vuln', 'seniorOpen'),
  };
}

/** The incident statistics from the `incidents` counters (trend: the trailing 12 months of `now`). */
export function incidentStatsOf(counters: Counters, now: Date): IncidentStats {
  return {
    total: valueOf(counters, 'total'),
    open: valueOf(counters, 'open'),
    resolved: valueOf(counters, 'resolved'),
    critical: valueOf(counters, 'critical'),
    byCategory: Object.fromEntries(
      INCIDENT_CATEGORIES.map((category) => [category, valueOf(counters, 'category', category)]),
    ) as IncidentStats['byCategory'],
    trend: trailingMonths(now).map((month) => ({
      month,
      reported: valueOf(counters, 'month', month, 'reported'),
      resolved: valueOf(counters, 'month', month, 'resolved'),
      critical: valueOf(counters, 'month', month, 'critical'),
    })),
  };
}
