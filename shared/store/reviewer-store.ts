/**
 * What the review workflow keeps on user items (`FIRM#<firmId>`, `USER#<userId>`) besides the users area's
 * fields: the one active job (activeJobId), the last assignment and recent completions (routing's workload
 * measure), and the user's own availability. The users area's reads are reused; these are the workflow's writes.
 */
import type { ReviewerState } from '../domain/review/workflow.js';
import type { Deps } from '../runtime/deps.js';
import type { TransactItem } from './conditional-write.js';
import { keys } from './keys.js';
import { getUserForUpdate, listUsers } from './user-store.js';

/** A user as routing sees it. */
export type ReviewerItem = ReviewerState & { firmId: string };

/** One user of the firm, strongly consistent (what a conditional write on it must be decided on). */
export async function getReviewer(deps: Deps, firmId: string, userId: string): Promise<ReviewerItem | null> {
  return (await getUserForUpdate(deps, firmId, userId)) as unknown as ReviewerItem | null;
}

/** Every user of the firm, deactivated ones included, strongly consistent. */
export async function listReviewers(deps: Deps, firmId: string): Promise<ReviewerItem[]> {
  return (await listUsers(deps, firmId)) as unknown as ReviewerItem[];
}

const ACTIVE = '(attribute_not_exists(deactivatedAt) OR deactivatedAt = :null)';

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
  const free = `attribute_exists(pk) AND (attribute_not_exists(activeJobId) OR activeJobId = :null) AND ${ACTIVE}`;
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

/** Sets the user's own availability for routing, conditional on the user existing and being active. */
export function availabilityItem(
  deps: Deps,
  firmId: string,
  userId: string,
  isAvailable: boolean,
): TransactItem {
  return {
    Update: {
      TableName: deps.tables.main,
      Key: keys.user(firmId, userId),
      UpdateExpression: 'SET isAvailable = :available',
      ConditionExpression: `attribute_exists(pk) AND ${ACTIVE}`,
      ExpressionAttributeValues: { ':available': isAvailable, ':null': null },
    },
  };
}
