import type { Role } from '../domain/auth/principal.js';
import type { JobOutcome, JobPriority, JobStatus, VulnerabilityFlag } from '../domain/review/jobs.js';
import type { ActionLogEntry } from '../domain/review/workflow.js';
import type { Actor } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import type { TransactItem } from './conditional-write.js';
import { send, withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import {
  firmListQuery,
  jobListAttributes,
  jobStatusAttributes,
  LIST_ATTRIBUTES,
  listPartition,
} from './list-attributes.js';
import { readListPage, type ListQuery } from './list-page.js';
import { MAIN_LISTS, MAIN_LISTS_BY_REFERENCE, MAIN_LISTS_FILTERED } from './tables.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';
import { dueInSweepIndex } from './sweep-index.js';

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
      Item: { ...jobRow(job), ...slaSweepEntry(job) },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** A job's item: its key, its fields and its list attributes (every writer of a job item builds it here). */
export function jobRow(job: ReviewJobItem): Record<string, unknown> {
  return { ...keys.job(job.firmId, job.id), ...job, ...jobListAttributes(job) };
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
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.job(firmId, jobId),
    ConsistentRead: true,
  });
  return Item ? (withoutKeys(Item, STORAGE_ATTRIBUTES) as unknown as StoredJob) : null;
}

/**
 * The firm's jobs newest first (submittedAt, then id, descending), all or of one status, as a list query
 * (issue 14): the firm-lists index, one partition per status, so a page reads O(page) items.
 */
export function jobListQuery(deps: Deps, firmId: string, status?: JobStatus): ListQuery {
  return firmListQuery(deps, firmId, {
    index: status ? MAIN_LISTS_FILTERED : MAIN_LISTS,
    partition: status ? listPartition.jobsByStatus(firmId, status) : listPartition.jobs(firmId),
    skPrefix: SK_PREFIX.job,
  });
}

/**
 * The `max` most recently submitted jobs of the firm with this client reference: O(max) from the
 * by-reference index (issue 14), whatever the firm's number of jobs.
 */
export async function jobsByClientReference(
  deps: Deps,
  firmId: string,
  clientReference: string,
  max: number,
): Promise<StoredJob[]> {
  const query = firmListQuery(deps, firmId, {
    index: MAIN_LISTS_BY_REFERENCE,
    partition: listPartition.jobsByClientReference(firmId, clientReference),
    skPrefix: SK_PREFIX.job,
  });
  return (await readListPage(deps.db, query, { pageSize: max })).items.map(storedJobOf);
}

/** A job item read from a list, without its storage attributes. */
export const storedJobOf = (item: Record<string, unknown>): StoredJob =>
  withoutKeys(item, STORAGE_ATTRIBUTES) as unknown as StoredJob;

/** Whether a job was already submitted with the upload key (its single-use marker exists). */
export async function isUploadUsed(deps: Deps, firmId: string, documentKeyHash: string): Promise<boolean> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.uploadUsed(firmId, documentKeyHash),
    ConsistentRead: true,
  });
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
 * (presentJob in shared/services/review/job-views.ts picks the interface's fields).
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
/** Index attributes of a job item, never part of the job. */
const STORAGE_ATTRIBUTES = [...SWEEP_ATTRIBUTES, ...LIST_ATTRIBUTES] as const;
export type SweepKind = 'SLA' | 'COMPLETION';

function slaSweepEntry(job: Pick<ReviewJobItem, 'firmId' | 'id' | 'slaDeadline'>) {
  return sweepEntry('SLA', job.slaDeadline, job.firmId, job.id);
}

function sweepEntry(kind: SweepKind, at: string, firmId: string, jobId: string) {
  return { sweepKind: kind, sweepDue: `${at}#${firmId}#${jobId}` };
}

/** Jobs in the sweep index of `kind` due strictly before `before`, oldest first, at most `limit`. */
export async function dueForSweep(
  deps: Deps,
  kind: SweepKind,
  before: string,
  limit: number,
): Promise<{ firmId: string; jobId: string }[]> {
  const due = await dueInSweepIndex(deps, kind, before, limit);
  return due.map(({ firmId, id }) => ({ firmId, jobId: id }));
}

/** What a move re-checks on the job it was decided on: every field given must still hold. */
export interface JobExpectation {
  /** The status read (or any of several). */
  status: JobStatus | readonly JobStatus[];
  /** The job is assigned to this user. */
  assignedTo?: string;
  /** No decision is recorded on the job (no pending completion). */
  undecided?: boolean;
  /** The pending decision is the one recorded by this REVIEW_COMPLETED record. */
  decisionRecordId?: string;
  /** No SLA breach is recorded yet, and the SLA deadline lies before this time. */
  overdueAt?: string;
}

export interface JobUpdate {
  expect: JobExpectation;
  /** Attributes to set (values as is). */
  set?: Partial<StoredJob>;
  /** Appended to the job's action log. */
  action?: ActionLogEntry;
  /**
   * The job's entry in the SLA sweep's index: kept when absent; `{ completionDueAt }` moves it to the
   * COMPLETION entries (a decision whose outcome record is pending); `'leave'` takes the job out of the index.
   */
  sweep?: { completionDueAt: string } | 'leave';
}

/** A conditional update of a job, for writeConditionally or a ledger append's `with`. */
export function jobUpdateItem(deps: Deps, firmId: string, jobId: string, update: JobUpdate): TransactItem {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':null': null };
  const change: Record<string, unknown> = {
    ...update.set,
    // A status change moves the job to its status's list (issue 14).
    ...(update.set?.status ? jobStatusAttributes(firmId, update.set.status) : {}),
    ...(typeof update.sweep === 'object'
      ? sweepEntry('COMPLETION', update.sweep.completionDueAt, firmId, jobId)
      : {}),
  };
  const sets = Object.entries(change).map(([field, value], i) => {
    names[`#s${i}`] = field;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  if (update.action) {
    sets.push('actionLog = list_append(if_not_exists(actionLog, :emptyLog), :logEntry)');
    values[':emptyLog'] = [];
    values[':logEntry'] = [update.action];
  }
  const removes = (update.sweep === 'leave' ? SWEEP_ATTRIBUTES : []).map((field, i) => {
    names[`#r${i}`] = field;
    return `#r${i}`;
  });
  const expression = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const condition = `attribute_exists(pk) AND ${expectationCondition(update.expect, values)}`;
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

const NOT_SET = (attribute: string) => `(attribute_not_exists(${attribute}) OR ${attribute} = :null)`;

/** The condition expressing `expect` (`#status` names the status attribute, `:null` is null). */
function expectationCondition(expect: JobExpectation, values: Record<string, unknown>): string {
  const statuses: readonly JobStatus[] = typeof expect.status === 'string' ? [expect.status] : expect.status;
  const placeholders = statuses.map((status, i) => {
    values[`:status${i}`] = status;
    return `:status${i}`;
  });
  const parts = [
    placeholders.length === 1 ? `#status = ${placeholders[0]}` : `#status IN (${placeholders.join(', ')})`,
  ];
  if (expect.assignedTo !== undefined) {
    values[':assignee'] = expect.assignedTo;
    parts.push('assignedReviewerId = :assignee');
  }
  if (expect.undecided) parts.push(NOT_SET('pendingCompletion'));
  if (expect.decisionRecordId !== undefined) {
    values[':decisionRecord'] = expect.decisionRecordId;
    parts.push('pendingCompletion.reviewCompletedRecordId = :decisionRecord');
  }
  if (expect.overdueAt !== undefined) {
    values[':overdueAt'] = expect.overdueAt;
    parts.push(NOT_SET('slaBreachedAt'), 'slaDeadline < :overdueAt');
  }
  return parts.join(' AND ');
}

function nonEmpty<T>(entries: [string, T][]): Record<string, T> | undefined {
  return entries.length ? Object.fromEntries(entries) : undefined;
}

/** The firm's jobs one Query page at a time (for recounts and backfills, which must not hold them all). */
export async function* jobPages(deps: Deps, firmId: string): AsyncGenerator<StoredJob[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await send(deps.db, 'Query', {
      TableName: deps.tables.main,
      KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
      ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ...skPrefixValues(':prefix', SK_PREFIX.job) },
      ConsistentRead: true,
      ExclusiveStartKey: startKey,
    });
    yield (page.Items ?? []).map((item) => withoutKeys(item, SWEEP_ATTRIBUTES) as unknown as StoredJob);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
