import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { JobOutcome, JobPriority, JobStatus, VulnerabilityFlag } from '../domain/review/jobs.js';
import type { Deps } from '../runtime/deps.js';
import { queryAll, withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import type { TransactItem } from './ledger-store.js';

/** A review job: `FIRM#<firmId>`, `JOB#<jobId>` in the main table (what GET /v1/firm/me/stats counts). */
export interface ReviewJobItem {
  id: string;
  firmId: string;
  documentReference: string;
  documentType: string;
  documentUrl: string;
  documentHash: string;
  clientReference: string;
  factFindSummary: Record<string, unknown>;
  status: JobStatus;
  priority: JobPriority;
  outcome: JobOutcome | null;
  outcomeReason: string | null;
  modifications: string | null;
  assignedReviewerId: string | null;
  assignedAt: string | null;
  completedAt: string | null;
  submittedAt: string;
  slaDeadline: string;
  aiContext: Record<string, unknown> | null;
  vulnerabilityFlags: VulnerabilityFlag[];
  requiresSeniorSignOff: boolean;
  clientSegments: Record<string, string>;
  ledgerRecordId: string | null;
  certificateId: string | null;
  /** Reviewer annotations made on the document (set by the reviewer workflow; absent counts as 0). */
  annotationCount?: number;
  /** When SLA_BREACHED was recorded for the job, or null (set by the SLA sweep). */
  slaBreachedAt?: string | null;
}

/** The job's put, for a transaction; fails (its condition) if the id were ever reused. */
export function jobPutItem(deps: Deps, job: ReviewJobItem): TransactItem {
  return {
    Put: {
      TableName: deps.tables.main,
      Item: { ...keys.job(job.firmId, job.id), ...job },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The single-use marker of an upload key, for a transaction; its condition fails if the key was used. */
export function uploadUsedPutItem(
  deps: Deps,
  firmId: string,
  documentKeyHash: string,
  jobId: string,
  usedAt: string,
): TransactItem {
  return {
    Put: {
      TableName: deps.tables.main,
      Item: { ...keys.uploadUsed(firmId, documentKeyHash), jobId, usedAt },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export async function getJob(deps: Deps, firmId: string, jobId: string): Promise<ReviewJobItem | null> {
  const { Item } = await deps.db.send(
    new GetCommand({ TableName: deps.tables.main, Key: keys.job(firmId, jobId), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item) as unknown as ReviewJobItem) : null;
}

/**
 * Every job of the firm (all pages of the JOB# query). O(jobs) reads per call: fine while a firm has
 * thousands of jobs; a submittedAt/status index replaces it when lists grow (docs/architecture.md).
 */
export async function listJobs(deps: Deps, firmId: string): Promise<ReviewJobItem[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ':prefix': SK_PREFIX.job },
  });
  return items.map((item) => withoutKeys(item) as unknown as ReviewJobItem);
}

/** Whether a job was already submitted with the upload key (its single-use marker exists). */
export async function isUploadUsed(deps: Deps, firmId: string, documentKeyHash: string): Promise<boolean> {
  const { Item } = await deps.db.send(
    new GetCommand({
      TableName: deps.tables.main,
      Key: keys.uploadUsed(firmId, documentKeyHash),
      ConsistentRead: true,
    }),
  );
  return Item !== undefined;
}
