import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Role } from '../domain/auth/principal.js';
import type { JobOutcome, JobPriority, JobStatus, VulnerabilityFlag } from '../domain/review/jobs.js';
import {
  queueOrder,
  type ActionLogEntry,
  type ReviewerState,
  type WaitingJob,
} from '../domain/review/workflow.js';
import type { Actor } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { queryAll, withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import { MAIN_JOB_SWEEP } from './tables.js';
import type { TransactItem } from './conditional-write.js';

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
  /** Number of annotations the reviewer submitted with the decision (0 until then). */
  annotationCount: number;
  /** When the SLA sweep recorded SLA_BREACHED for the job; null until then (at most once per job). */
  slaBreachedAt: string | null;
}

/** The job's put, for a transaction; fails (its condition) if the id were ever reused. */
export function jobPutItem(deps: Deps, job: StoredJob): TransactItem {
  return {
    Put: {
      TableName: deps.tables.main,
      // A new job is unfinished: it enters the SLA sweep's index until it is decided, cancelled or breached.
      Item: { ...keys.job(job.firmId, job.id), ...job, ...slaSweepEntry(job) },
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

export async function getJob(deps: Deps, firmId: string, jobId: string): Promise<StoredJob | null> {
  const { Item } = await deps.db.send(
    new GetCommand({ TableName: deps.tables.main, Key: keys.job(firmId, jobId), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item, SWEEP_ATTRIBUTES) as unknown as StoredJob) : null;
}

/**
 * Every job of the firm (all pages of the JOB# query). O(jobs) reads per call: fine while a firm has
 * thousands of jobs; a submittedAt/status index replaces it when lists grow (docs/architecture.md).
 */
export async function listJobs(deps: Deps, firmId: string): Promise<StoredJob[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ':prefix': SK_PREFIX.job },
  });
  return items.map((item) => withoutKeys(item, SWEEP_ATTRIBUTES) as unknown as StoredJob);
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

/** A decision recorded with REVIEW_COMPLETED whose outcome record is not yet written (see completeJob). */
export interface PendingCompletion {
  outcome: JobOutcome;
  outcomeReason: string | null;
  modifications: string | null;
  annotationCount: number;
  reviewCompletedRecordId: string;
  decidedAt: string;
  actor: Actor;
  role: Role;
}

/**
 * What the workflow keeps on the job item besides the interface's fields; never returned by the API
 * (presentJob in shared/services/review-jobs.ts picks the interface's fields).
 */
export interface JobInternals {
  /** Who submitted the job (a user may cancel only their own submissions). */
  submittedBy?: { kind: 'apiKey' | 'user'; id: string };
  /** Review actions, oldest first; shown anonymised. */
  actionLog?: ActionLogEntry[];
  pendingCompletion?: PendingCompletion | null;
  /** Set on escalation: a re-routed job that was escalated goes back to the escalation queue. */
  escalatedAt?: string | null;
  escalationReason?: string | null;
}

export type StoredJob = ReviewJobItem & JobInternals;

/** The SLA sweep index's attributes (shared/store/tables.ts): storage detail, stripped on read. */
const SWEEP_ATTRIBUTES = ['sweepKind', 'sweepDue'] as const;
export type SweepKind = 'SLA' | 'COMPLETION';

function slaSweepEntry(job: Pick<ReviewJobItem, 'firmId' | 'id' | 'slaDeadline'>) {
  return { sweepKind: 'SLA', sweepDue: `${job.slaDeadline}#${job.firmId}#${job.id}` };
}

export function sweepEntry(kind: SweepKind, at: string, firmId: string, jobId: string) {
  return { sweepKind: kind, sweepDue: `${at}#${firmId}#${jobId}` };
}

/** Jobs in the sweep index of `kind` due strictly before `before`, oldest first, at most `limit`. */
export async function dueForSweep(
  deps: Deps,
  kind: SweepKind,
  before: string,
  limit: number,
): Promise<{ firmId: string; jobId: string }[]> {
  const found: { firmId: string; jobId: string }[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tables.main,
        IndexName: MAIN_JOB_SWEEP,
        KeyConditionExpression: 'sweepKind = :kind AND sweepDue < :before',
        ExpressionAttributeValues: { ':kind': kind, ':before': before },
        ProjectionExpression: 'firmId, id',
        Limit: limit - found.length,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? [])
      found.push({ firmId: item.firmId as string, jobId: item.id as string });
    startKey = page.LastEvaluatedKey;
  } while (startKey && found.length < limit);
  return found;
}

export type WaitingList = 'queue' | 'escalated';

function waitingKey(list: WaitingList, firmId: string, order: string) {
  return list === 'queue' ? keys.reviewQueue(firmId, order) : keys.reviewEscalated(firmId, order);
}

export function waitingOf(job: ReviewJobItem): WaitingJob {
  return {
    jobId: job.id,
    priority: job.priority,
    submittedAt: job.submittedAt,
    vulnerable: job.vulnerabilityFlags.length > 0,
    requiresSeniorSignOff: job.requiresSeniorSignOff,
  };
}

/** Puts the job on the routing queue or the escalation queue (an entry carrying what routing needs). */
export function waitingPutItem(deps: Deps, list: WaitingList, job: ReviewJobItem): TransactItem {
  const entry = waitingOf(job);
  return {
    Put: {
      TableName: deps.tables.main,
      Item: { ...waitingKey(list, job.firmId, queueOrder(entry)), ...entry },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Takes the job off a waiting list, conditional on it being there. */
export function waitingDeleteItem(
  deps: Deps,
  list: WaitingList,
  firmId: string,
  entry: WaitingJob,
): TransactItem {
  return {
    Delete: {
      TableName: deps.tables.main,
      Key: waitingKey(list, firmId, queueOrder(entry)),
      ConditionExpression: 'attribute_exists(pk)',
    },
  };
}

/** A waiting list in order: URGENT first, then oldest (one ordered, strongly consistent query). */
export async function listWaiting(deps: Deps, firmId: string, list: WaitingList): Promise<WaitingJob[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ':prefix': list === 'queue' ? SK_PREFIX.reviewQueue : SK_PREFIX.reviewEscalated,
    },
    ConsistentRead: true,
  });
  return items.map((item) => withoutKeys(item) as unknown as WaitingJob);
}

export interface JobUpdate {
  /** Attributes to set (values as is). */
  set?: Record<string, unknown>;
  remove?: readonly string[];
  /** Appended to the job's action log. */
  action?: ActionLogEntry;
  /** Condition; `#status` names the status attribute, `:null` is null; more values in `values`. */
  condition: string;
  values?: Record<string, unknown>;
}

/** A conditional update of a job, for a transaction. */
export function jobUpdateItem(deps: Deps, firmId: string, jobId: string, update: JobUpdate): TransactItem {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':null': null, ...update.values };
  const sets = Object.entries(update.set ?? {}).map(([field, value], i) => {
    names[`#s${i}`] = field;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  if (update.action) {
    sets.push('actionLog = list_append(if_not_exists(actionLog, :emptyLog), :logEntry)');
    values[':emptyLog'] = [];
    values[':logEntry'] = [update.action];
  }
  const removes = (update.remove ?? []).map((field, i) => {
    names[`#r${i}`] = field;
    return `#r${i}`;
  });
  const expression = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const condition = `attribute_exists(pk) AND (${update.condition})`;
  // DynamoDB refuses names and values that no expression uses: keep only the referenced ones.
  const used = (token: string) => `${expression} ${condition}`.match(new RegExp(`${token}(?![A-Za-z0-9_])`));
  return {
    Update: {
      TableName: deps.tables.main,
      Key: keys.job(firmId, jobId),
      UpdateExpression: expression,
      ConditionExpression: condition,
      ExpressionAttributeNames: nonEmpty(Object.entries(names).filter(([name]) => used(name))),
      ExpressionAttributeValues: nonEmpty(Object.entries(values).filter(([value]) => used(value))),
    },
  };
}

function nonEmpty<T>(entries: [string, T][]): Record<string, T> | undefined {
  return entries.length ? Object.fromEntries(entries) : undefined;
}

/** What routing keeps on a user item besides the users area's fields. */
export type ReviewerItem = ReviewerState & { firmId: string };

/**
 * Gives a user a job: sets activeJobId, conditional on the user still having none (one active job per
 * reviewer: two routers can never both give the same user a job) and still being active. `routed` also
 * requires them to be available and signed in (a senior picking up an escalated job chose to).
 */
export function reviewerClaimItem(
  deps: Deps,
  firmId: string,
  userId: string,
  jobId: string,
  at: string,
  routed: boolean,
): TransactItem {
  const free =
    'attribute_exists(pk) AND (attribute_not_exists(activeJobId) OR activeJobId = :null) AND (attribute_not_exists(deactivatedAt) OR deactivatedAt = :null)';
  return {
    Update: {
      TableName: deps.tables.main,
      Key: keys.user(firmId, userId),
      UpdateExpression: 'SET activeJobId = :job, lastAssignedAt = :at',
      ConditionExpression: routed
        ? `${free} AND isAvailable = :true AND attribute_type(activatedAt, :string)`
        : free,
      ExpressionAttributeValues: {
        ':job': jobId,
        ':at': at,
        ':null': null,
        ...(routed ? { ':true': true, ':string': 'S' } : {}),
      },
    },
  };
}

/** Frees a user of `jobId` (conditional on it being their active job); `recentCompletions` on completion. */
export function reviewerReleaseItem(
  deps: Deps,
  firmId: string,
  userId: string,
  jobId: string,
  recentCompletions?: string[],
): TransactItem {
  return {
    Update: {
      TableName: deps.tables.main,
      Key: keys.user(firmId, userId),
      UpdateExpression: `SET activeJobId = :null${recentCompletions ? ', recentCompletions = :recent' : ''}`,
      ConditionExpression: 'activeJobId = :job',
      ExpressionAttributeValues: {
        ':null': null,
        ':job': jobId,
        ...(recentCompletions ? { ':recent': recentCompletions } : {}),
      },
    },
  };
}

/** Outcome of a transaction of workflow items: done, or the index of the first item whose condition failed. */
export type JobWriteResult = 'done' | { failedItem: number };

/**
 * Commits workflow items (no ledger record) in one transaction. A failed condition is the caller's to judge;
 * a conflict with a concurrent transaction on the same items is retried with a short random backoff.
 */
export async function commitJobWrite(deps: Deps, items: TransactItem[]): Promise<JobWriteResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      await deps.db.send(new TransactWriteCommand({ TransactItems: items }));
      return 'done';
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const failed = (error.CancellationReasons ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failed >= 0) return { failedItem: failed };
      if (attempt >= 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
