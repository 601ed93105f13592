import { factOfJob, type ReportingFact } from '../domain/governance/aggregates.js';
import type { RecordMessage } from '../ledger-writer/dispatch.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import { getRecordBySequence } from '../store/ledger-store.js';
import { batchWrite, commitAggregation, seedAggregates } from '../store/reporting-store.js';
import { getJob, jobRow, type ReviewJobItem } from '../store/review-job-store.js';

export type AggregationResult = 'aggregated' | 'already-aggregated' | 'skipped';

/**
 * The reporting worker's work for one dispatched outcome record: find the record's job and add the
 * completed job to the firm's day bucket exactly once (redeliveries find the marker and do nothing).
 * A record or job that cannot be aggregated (missing, not completed) is skipped and logged, not retried:
 * retrying would not change it.
 */
export async function aggregateOutcomeRecord(deps: Deps, message: RecordMessage): Promise<AggregationResult> {
  const record = await getRecordBySequence(deps, message.firmId, message.sequenceNumber);
  if (!record || record.id !== message.recordId || !record.reviewJobId) {
    logger.warn('Outcome record not found or without a review job; not aggregated', { ...message });
    return 'skipped';
  }
  const job = await getJob(deps, message.firmId, record.reviewJobId);
  const fact = job ? factOfJob(job) : null;
  if (!fact) {
    logger.warn('Review job of an outcome record is missing or not completed; not aggregated', {
      ...message,
      reviewJobId: record.reviewJobId,
    });
    return 'skipped';
  }
  return (await commitAggregation(deps, message.firmId, fact)) ? 'aggregated' : 'already-aggregated';
}

/**
 * Seeds completed jobs straight into DynamoDB (job items and their aggregates), without the review HTTP
 * flow and without ledger records: for tests and benches only. Jobs must be new and completed.
 */
export async function seedCompletedJobs(
  deps: Deps,
  firmId: string,
  jobs: readonly ReviewJobItem[],
): Promise<void> {
  const facts: ReportingFact[] = [];
  for (const job of jobs) {
    if (job.firmId !== firmId) throw new Error(`Job ${job.id} belongs to another firm`);
    const fact = factOfJob(job);
    if (fact) facts.push(fact);
  }
  await batchWrite(
    deps,
    deps.tables.main,
    jobs.map((job) => ({ PutRequest: { Item: jobRow(job) } })),
  );
  await seedAggregates(deps, firmId, facts);
}
