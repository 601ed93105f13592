/** The firm's review jobs as the interface shows them: the list, one job with its review actions. */
import { anonymiseActions, type ReviewAction } from '../../domain/review/workflow.js';
import type { JobStatus } from '../../domain/review/jobs.js';
import type { Deps } from '../../runtime/deps.js';
import {
  jobListQuery,
  storedJobOf,
  type ReviewJobItem,
  type StoredJob,
} from '../../store/review-job-store.js';
import { asPage, readList, type Page } from '../pages.js';
import { loadJob } from './acting.js';

export interface JobListQuery {
  page: number;
  pageSize: number;
  cursor?: string | undefined;
  status?: JobStatus | undefined;
}

/**
 * A page of the firm's jobs, newest first (submittedAt, then id, descending), all or of one status: O(page)
 * from the firm-lists index (issue 14). total is known on the page that ends the list, null before it.
 */
export async function listReviewJobs(
  deps: Deps,
  firmId: string,
  query: JobListQuery,
): Promise<Page<ReviewJobItem>> {
  const scope = { firmId, query: { list: 'jobs', status: query.status, pageSize: query.pageSize } };
  const read = await readList(deps, scope, query, jobListQuery(deps, firmId, query.status), (item) =>
    presentJob(storedJobOf(item)),
  );
  return asPage(read, query.pageSize);
}

/**
 * A job as the interface shows it: exactly the Review job fields plus annotationCount and slaBreachedAt,
 * never the workflow's internals (submitter, action log with user ids, pending decision, index attributes).
 */
export function presentJob(job: StoredJob): ReviewJobItem {
  return {
    id: job.id,
    firmId: job.firmId,
    documentReference: job.documentReference,
    documentType: job.documentType,
    documentUrl: job.documentUrl,
    documentHash: job.documentHash,
    clientReference: job.clientReference,
    factFindSummary: job.factFindSummary,
    status: job.status,
    priority: job.priority,
    outcome: job.outcome,
    outcomeReason: job.outcomeReason,
    modifications: job.modifications,
    assignedReviewerId: job.assignedReviewerId,
    assignedAt: job.assignedAt,
    completedAt: job.completedAt,
    submittedAt: job.submittedAt,
    slaDeadline: job.slaDeadline,
    aiContext: job.aiContext,
    vulnerabilityFlags: job.vulnerabilityFlags,
    requiresSeniorSignOff: job.requiresSeniorSignOff,
    clientSegments: job.clientSegments,
    ledgerRecordId: job.ledgerRecordId,
    certificateId: job.certificateId,
    annotationCount: job.annotationCount ?? 0,
    slaBreachedAt: job.slaBreachedAt ?? null,
  };
}

/**
 * A job with its anonymised review actions (oldest first; reviewers as "Reviewer 1", "Reviewer 2" in order of
 * appearance within the job): the one presentation of a single job, for the job endpoint and explainability.
 */
export function presentJobDetail(job: StoredJob): ReviewJobItem & { reviewActions: ReviewAction[] } {
  return { ...presentJob(job), reviewActions: anonymiseActions(job.actionLog ?? []) };
}

/** One of the firm's jobs, presented with its review actions; 404 for an unknown id or another firm's job. */
export async function getReviewJob(
  deps: Deps,
  firmId: string,
  jobId: string,
): Promise<ReviewJobItem & { reviewActions: ReviewAction[] }> {
  return presentJobDetail(await loadJob(deps, firmId, jobId));
}
