/**
 * Seeds completed (and open) review jobs straight into the stack's DynamoDB with their reporting
 * aggregates, as the reviewer workflow plus the reporting worker would leave them (for governance tests).
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { JobOutcome } from '../../shared/domain/review/jobs.js';
import { newId } from '../../shared/ids.js';
import { jobRow, type ReviewJobItem } from '../../shared/store/review-job-store.js';
import { recountFirmCounters } from '../../shared/services/firm-counters.js';
import { seedCompletedJobs } from '../../shared/services/reporting.js';
import { stackDeps } from './helpers.js';

const STATUS: Record<JobOutcome, ReviewJobItem['status']> = {
  APPROVED: 'APPROVED',
  APPROVED_WITH_MODIFICATIONS: 'MODIFIED',
  REJECTED: 'REJECTED',
};

export interface SeedJob extends Partial<ReviewJobItem> {
  outcome?: JobOutcome | null;
  completedAt?: string | null;
  model?: { provider: string; version: string };
}

export function jobItem(firmId: string, seed: SeedJob): ReviewJobItem {
  const completedAt = seed.completedAt ?? null;
  const submittedAt =
    seed.submittedAt ??
    new Date(Date.parse(completedAt ?? new Date().toISOString()) - 3_600_000).toISOString();
  const outcome = seed.outcome ?? null;
  const { model, ...rest } = seed;
  return {
    id: newId('job'),
    firmId,
    documentReference: 'DOC-1',
    documentType: 'SUITABILITY_REPORT',
    documentUrl: 'immutable://documents/x',
    documentHash: 'a'.repeat(64),
    clientReference: 'CLI-1',
    factFindSummary: {},
    status: outcome ? STATUS[outcome] : 'QUEUED',
    priority: 'STANDARD',
    outcomeReason: outcome === 'REJECTED' ? 'Unsuitable' : null,
    modifications: outcome === 'APPROVED_WITH_MODIFICATIONS' ? 'Reworded risk warning' : null,
    assignedReviewerId: null,
    assignedAt: null,
    submittedAt,
    slaDeadline: new Date(Date.parse(submittedAt) + 48 * 3_600_000).toISOString(),
    aiContext: model ? { model } : null,
    vulnerabilityFlags: [],
    requiresSeniorSignOff: false,
    clientSegments: {},
    ledgerRecordId: null,
    certificateId: null,
    annotationCount: 0,
    slaBreachedAt: null,
    ...rest,
    outcome,
    completedAt,
  };
}

/** Seeds jobs; completed ones also go into the aggregates (seedCompletedJobs), open ones only as items. */
export async function seedJobs(firmId: string, seeds: readonly SeedJob[]): Promise<ReviewJobItem[]> {
  const jobs = seeds.map((seed) => jobItem(firmId, seed));
  await seedCompletedJobs(stackDeps(), firmId, jobs);
  // Written outside the services, like migrated data: the counters' backfill makes them count (issue 14).
  await recountFirmCounters(stackDeps(), firmId);
  return jobs;
}

/** A job item without aggregation (as the review flow leaves it before the reporting worker runs). */
export async function putJobOnly(job: ReviewJobItem): Promise<void> {
  const deps = stackDeps();
  await deps.db.send(new PutCommand({ TableName: deps.tables.main, Item: jobRow(job) }));
  await recountFirmCounters(deps, job.firmId);
}

/** n seeds: `rejected` REJECTED, `modified` APPROVED_WITH_MODIFICATIONS, the rest APPROVED. */
export function many(n: number, rejected: number, extra: SeedJob = {}, modified = 0): SeedJob[] {
  return Array.from({ length: n }, (_, i) => ({
    ...extra,
    outcome: i < rejected ? 'REJECTED' : i < rejected + modified ? 'APPROVED_WITH_MODIFICATIONS' : 'APPROVED',
  }));
}
