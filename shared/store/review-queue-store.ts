/**
 * The review workflow's two waiting lists in the main table: the routing queue (QUEUED jobs) and the
 * escalation queue (ESCALATED jobs a senior may start). Each entry carries what routing needs, keyed in
 * queue order (URGENT first, then oldest), so a list reads in order with one query.
 */
import { queueOrder, type WaitingJob } from '../domain/review/workflow.js';
import type { Deps } from '../runtime/deps.js';
import type { TransactItem } from './conditional-write.js';
import { queryAll, withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import type { StoredJob } from './review-job-store.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

export type WaitingList = 'queue' | 'escalated';

function waitingKey(list: WaitingList, firmId: string, order: string) {
  return list === 'queue' ? keys.reviewQueue(firmId, order) : keys.reviewEscalated(firmId, order);
}

export function waitingOf(job: StoredJob): WaitingJob {
  return {
    jobId: job.id,
    priority: job.priority,
    submittedAt: job.submittedAt,
    vulnerable: job.vulnerabilityFlags.length > 0,
    requiresSeniorSignOff: job.requiresSeniorSignOff,
    submittedByUserId: job.submittedBy?.kind === 'user' ? job.submittedBy.id : null,
  };
}

/** Puts the job on the routing queue or the escalation queue (an entry carrying what routing needs). */
export function waitingPutItem(deps: Deps, list: WaitingList, job: StoredJob): TransactItem {
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
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', list === 'queue' ? SK_PREFIX.reviewQueue : SK_PREFIX.reviewEscalated),
    },
    ConsistentRead: true,
  });
  return items.map((item) => withoutKeys(item) as unknown as WaitingJob);
}
