/**
 * Governance reports: models (usage, drift, timeline), bias, vulnerability, Consumer Duty, explainability.
 * Windowed reports (bias, drift, timeline, Consumer Duty) read the per-day aggregates the reporting worker
 * maintains, never the jobs themselves, so their cost does not grow with the number of jobs (see
 * docs/architecture.md, "Governance reports").
 */
import { COMPLETED_STATUSES } from '../domain/governance/aggregates.js';
import {
  computeBias,
  DEFAULT_REJECTION_THRESHOLD,
  FOUR_FIFTHS,
  MIN_SEGMENT_SIZE,
} from '../domain/governance/bias.js';
import { computeConsumerDuty, outcomesOf, slaOf } from '../domain/governance/consumer-duty.js';
import {
  computeDrift,
  DRIFT_THRESHOLDS,
  MIN_DRIFT_JOBS,
  weeklyTimeline,
} from '../domain/governance/models.js';
import { modelsOf, modelSummaryOf, vulnerabilityCountsOf } from '../domain/counters/reports.js';
import {
  DAY_MS,
  endOfUtcDay,
  monthsBefore,
  parseBound,
  periodProblems,
  startOfUtcQuarter,
  type Period,
} from '../domain/governance/periods.js';
import { sumCounters } from '../domain/governance/aggregates.js';
import { effectiveSettings } from '../domain/firm/settings.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { isId } from '../ids.js';
import type { Deps } from '../runtime/deps.js';
import { getRecordById, readHead } from '../store/ledger-store.js';
import { ledgerRecordsBounding, readPeriodCounters } from '../store/reporting-store.js';
import { readCounterFamily } from '../store/counter-store.js';
import { modelSeenRange, recentFlaggedJobIds } from '../store/job-marker-store.js';
import { getJob, jobsByClientReference, type StoredJob } from '../store/review-job-store.js';
import { presentJobDetail } from './review/job-views.js';
import { getUser, listUsers } from '../store/user-store.js';
import { loadFirm } from './firm.js';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Resolves optional from/to query values (date-only rules of periods.ts) against defaults; 400 with details
 * for a value that is not a date, lies outside 1970-01-01..9999-12-31, or a period that is inverted or longer
 * than MAX_PERIOD_DAYS (so that no report reads or returns an unbounded amount of data).
 */
export function resolvePeriod(
  query: { from?: string | undefined; to?: string | undefined },
  defaults: Period,
): Period {
  const from = query.from === undefined ? defaults.from : parseBound(query.from, 'from');
  const to = query.to === undefined ? defaults.to : parseBound(query.to, 'to');
  const problems = periodProblems(from, to);
  if (problems.length > 0 || from === null || to === null)
    throw new ValidationError('Invalid period', problems);
  return { from, to };
}

// ---------------------------------------------------------------------------------------------- models

/**
 * Every provider/version seen on a job, from the `jobs` counters kept at submit, complete and cancel (one Query
 * of the family's shards) and each model's first/last sighting (two Limit-1 queries of its markers): O(models).
 */
export async function modelSummaries(deps: Deps, firmId: string) {
  const { counters } = await readCounterFamily(deps, firmId, 'jobs');
  return Promise.all(
    modelsOf(counters).map(async (model) => {
      const seen = await modelSeenRange(deps, firmId, model.provider, model.version);
      // A model counted but without a marker (never, unless written outside the service): no sighting to show.
      return modelSummaryOf(counters, model, {
        firstSeenAt: seen.firstSeenAt ?? '',
        lastSeenAt: seen.lastSeenAt ?? '',
      });
    }),
  );
}

export async function modelDrift(deps: Deps, firmId: string, baselineDays: number, currentDays: number) {
  const now = deps.clock.now().getTime();
  const current: Period = { from: now - currentDays * DAY_MS, to: now };
  const baseline: Period = { from: current.from - baselineDays * DAY_MS, to: current.from - 1 };
  const [baselineCounters, currentCounters] = await Promise.all([
    readPeriodCounters(deps, firmId, baseline, ['model']),
    readPeriodCounters(deps, firmId, current, ['model']),
  ]);
  return {
    signals: computeDrift(baselineCounters, currentCounters),
    thresholds: { minimumCompletedJobs: MIN_DRIFT_JOBS, ...DRIFT_THRESHOLDS },
    baselineWindowDays: baselineDays,
    currentWindowDays: currentDays,
    baselineWindow: { from: iso(baseline.from), to: iso(baseline.to) },
    currentWindow: { from: iso(current.from), to: iso(current.to) },
  };
}

export const TIMELINE_DEFAULT_DAYS = 180;

export async function modelTimeline(
  deps: Deps,
  firmId: string,
  provider: string,
  version: string,
  query: { from?: string | undefined; to?: string | undefined },
) {
  const now = deps.clock.now().getTime();
  const range = resolvePeriod(query, { from: now - TIMELINE_DEFAULT_DAYS * DAY_MS, to: now });
  const days = await readPeriodCounters(deps, firmId, range, ['model'], { months: false });
  return weeklyTimeline(days, range, provider, version);
}

// ------------------------------------------------------------------------------------------------ bias

export async function biasReport(
  deps: Deps,
  firmId: string,
  query: { from?: string | undefined; to?: string | undefined; rejectionThreshold?: number | undefined },
) {
  const now = deps.clock.now().getTime();
  const period = resolvePeriod(query, { from: monthsBefore(now, 12), to: now });
  const rejectionThreshold = query.rejectionThreshold ?? DEFAULT_REJECTION_THRESHOLD;
  const [firm, days] = await Promise.all([
    loadFirm(deps, firmId),
    readPeriodCounters(deps, firmId, period, ['all', 'seg']),
  ]);
  const settings = effectiveSettings(firm.settings);
  const thresholds = {
    warning: settings.biasWarningThreshold,
    alert: settings.biasAlertThreshold,
    absoluteAlert: settings.biasAbsoluteRejectionThreshold,
  };
  const result = computeBias(days, period, thresholds, rejectionThreshold);
  return {
    periodFrom: iso(period.from),
    periodTo: iso(period.to),
    totalRecords: result.totalRecords,
    overallRejectionRate: result.overallRejectionRate,
    dimensions: result.dimensions,
    flags: result.flags,
    thresholds: {
      warning: thresholds.warning,
      alert: thresholds.alert,
      absoluteRejectionAlert: thresholds.absoluteAlert,
    },
    rejectionAlertThreshold: rejectionThreshold,
    trend: result.trend,
    method: {
      minimumSegmentSize: MIN_SEGMENT_SIZE,
      confidenceLevel: 0.95,
      interval: 'wilson',
      favourableOutcomes: ['APPROVED', 'APPROVED_WITH_MODIFICATIONS'],
      fourFifthsRatio: FOUR_FIFTHS,
    },
  };
}

// -------------------------------------------------------------------------------------- consumer duty

export async function consumerDutyReport(
  deps: Deps,
  firmId: string,
  query: { from?: string | undefined; to?: string | undefined },
) {
  const now = deps.clock.now().getTime();
  const period = resolvePeriod(query, { from: startOfUtcQuarter(now), to: endOfUtcDay(now) });
  const length = period.to - period.from + 1;
  const previous: Period = { from: period.from - length, to: period.from - 1 };
  const [firm, days, previousDays, head, users] = await Promise.all([
    loadFirm(deps, firmId),
    readPeriodCounters(deps, firmId, period, ['all', 'cd']),
    readPeriodCounters(deps, firmId, previous, ['all']),
    readHead(deps, firmId),
    listUsers(deps, firmId),
  ]);
  const anchor = await ledgerRecordsBounding(deps, firmId, head.sequenceNumber, period);
  const settings = effectiveSettings(firm.settings);
  const thresholds = {
    rejectionRateWarning: settings.cdRejectionRateWarningThreshold,
    rejectionRateAlert: settings.cdRejectionRateAlertThreshold,
    slaComplianceWarning: settings.cdSlaComplianceWarningThreshold,
    slaComplianceAlert: settings.cdSlaComplianceAlertThreshold,
    readCompletionWarning: settings.cdReadCompletionWarningThreshold,
  };
  const result = computeConsumerDuty(days, period, thresholds);
  const names = new Map(users.map((u) => [u.id, u]));
  const previousCounters = sumCounters(previousDays.values());
  return {
    periodFrom: iso(period.from),
    periodTo: iso(period.to),
    metrics: {
      outcomes: result.outcomes,
      slaCompliance: result.slaCompliance,
      reviewerWorkload: result.reviewerWorkload.map((w) => ({
        ...w,
        reviewerName: names.get(w.reviewerId)?.name ?? null,
        reviewerRole: names.get(w.reviewerId)?.role ?? null,
      })),
      documentTypes: result.documentTypes,
      monthly: result.monthly,
      previousPeriod: {
        periodFrom: iso(previous.from),
        periodTo: iso(previous.to),
        outcomes: outcomesOf(previousCounters),
        slaCompliance: slaOf(previousCounters),
      },
      ledgerAnchor: anchor
        ? {
            firstRecord: anchor.first,
            lastRecord: anchor.last,
            recordCount: anchor.last.sequenceNumber - anchor.first.sequenceNumber + 1,
            chainHash: anchor.last.chainHash,
          }
        : { firstRecord: null, lastRecord: null, recordCount: 0, chainHash: null },
      states: {
        ...result.states,
        // Reading to completion is not measured by the review flow yet; reported as such, never guessed.
        readCompletion: 'not_measured' as const,
      },
      readCompletionRate: null,
      thresholds,
    },
  };
}

// -------------------------------------------------------------------------------------- vulnerability

export const RECENT_FLAGGED_JOBS = 20;

/**
 * Counts from the `jobs` counters (one Query of the shards), the 20 most recently submitted flagged jobs from
 * their markers (one Limit-20 query, then their items), and the firm's users: O(users + 20).
 */
export async function vulnerabilityReport(deps: Deps, firmId: string) {
  const [{ counters }, recentIds, users] = await Promise.all([
    readCounterFamily(deps, firmId, 'jobs'),
    recentFlaggedJobIds(deps, firmId, RECENT_FLAGGED_JOBS),
    listUsers(deps, firmId),
  ]);
  const recent = (await Promise.all(recentIds.map((id) => getJob(deps, firmId, id)))).filter(
    (job): job is StoredJob => job !== null,
  );
  const counts = vulnerabilityCountsOf(counters);
  const active = users.filter((user) => user.deactivatedAt === null);
  return {
    totalFlaggedJobs: counts.totalFlaggedJobs,
    totalUnflaggedJobs: counts.totalUnflaggedJobs,
    flagBreakdown: counts.flagBreakdown,
    specialistReviewerCount: active.filter((user) => user.specialistVulnerability).length,
    eligibleReviewerCount: active.filter(
      (user) => user.specialistVulnerability || user.role === 'LEAD_REVIEWER' || user.role === 'FIRM_ADMIN',
    ).length,
    totalReviewerCount: active.length,
    awaitingSeniorSignOff: counts.awaitingSeniorSignOff,
    recentFlaggedJobs: recent.map((job) => ({
      id: job.id,
      documentReference: job.documentReference,
      documentType: job.documentType,
      status: job.status,
      priority: job.priority,
      outcome: job.outcome ?? null,
      vulnerabilityFlags: job.vulnerabilityFlags,
      requiresSeniorSignOff: job.requiresSeniorSignOff,
      assignedReviewerId: job.assignedReviewerId ?? null,
      submittedAt: job.submittedAt,
      slaDeadline: job.slaDeadline,
      completedAt: job.completedAt ?? null,
      slaBreachedAt: job.slaBreachedAt ?? null,
    })),
  };
}

// ------------------------------------------------------------------------------------- explainability

const isCompleted = (job: StoredJob) =>
  (COMPLETED_STATUSES as readonly string[]).includes(job.status) && job.outcome !== null;

async function explainabilityRecord(
  deps: Deps,
  firm: { id: string; name: string; frnNumber: string },
  job: StoredJob,
) {
  const [reviewer, ledgerRecord] = await Promise.all([
    job.assignedReviewerId ? getUser(deps, firm.id, job.assignedReviewerId) : null,
    job.ledgerRecordId ? getRecordById(deps, firm.id, job.ledgerRecordId) : null,
  ]);
  return {
    // Presented as GET /v1/review/jobs/{id} presents it: no submitter, pending decision or reviewer user ids
    // in the actions (the named reviewer below is the one the record states).
    job: presentJobDetail(job),
    reviewer: reviewer
      ? {
          id: reviewer.id,
          name: reviewer.name,
          role: reviewer.role,
          fcaRef: reviewer.fcaRef,
          qualifications: reviewer.qualifications,
          specialistVulnerability: reviewer.specialistVulnerability,
        }
      : null,
    certificate: job.certificateId
      ? { id: job.certificateId, verificationPath: `/v1/verify/${job.certificateId}` }
      : null,
    ledgerRecord,
    firm: { id: firm.id, name: firm.name, frnNumber: firm.frnNumber },
  };
}

/** 404 for an unknown job (or another firm's); 409 CONFLICT for a job without an outcome yet. */
export async function explainJob(deps: Deps, firmId: string, jobId: string) {
  const job = isId('job', jobId) ? await getJob(deps, firmId, jobId) : null;
  if (!job) throw new NotFoundError('Review job not found');
  if (!isCompleted(job))
    throw new ConflictError(
      `Review job is ${job.status}: explainability records exist only for completed jobs`,
    );
  return explainabilityRecord(deps, await loadFirm(deps, firmId), job);
}

export const EXPLAINABILITY_SEARCH_LIMIT = 100;
/** Jobs one search reads: the most recently submitted with the reference (issue 14: O(this), not O(jobs)). */
export const EXPLAINABILITY_SEARCH_READ = 500;

/**
 * The completed jobs with this client reference, most recently completed first (at most 100), among the 500
 * most recently submitted jobs with it (a client reference has a handful of jobs; the bound keeps the read
 * O(1) in the firm's size).
 */
export async function searchExplainability(deps: Deps, firmId: string, clientReference: string) {
  const [firm, jobs] = await Promise.all([
    loadFirm(deps, firmId),
    jobsByClientReference(deps, firmId, clientReference, EXPLAINABILITY_SEARCH_READ),
  ]);
  const completed = jobs
    .filter(isCompleted)
    .sort((a, b) => (b.completedAt ?? '').localeCompare(a.completedAt ?? '') || b.id.localeCompare(a.id))
    .slice(0, EXPLAINABILITY_SEARCH_LIMIT);
  return Promise.all(completed.map((job) => explainabilityRecord(deps, firm, job)));
}
