/**
 * A reviewer's moves on a job besides completion (shared/services/review/completion.ts): start, escalate,
 * and the submitter's cancel. Each is one DynamoDB transaction whose conditions re-check the state it was
 * decided on (the job's status and assignee, the reviewer's activeJobId), so concurrent callers can never
 * both win; a move with a ledger event commits it in the same transaction (appendRecord's `with`).
 */
import { jobMetadata } from '../../domain/review/jobs.js';
import { actorOf, type Principal } from '../../domain/auth/principal.js';
import { ConflictError } from '../../errors.js';
import { appendRecord } from '../../ledger-writer/append.js';
import { isoNow } from '../../ports/clock.js';
import type { Deps } from '../../runtime/deps.js';
import { writeConditionally, type TransactItem } from '../../store/conditional-write.js';
import { LOST_RACE, retryOnLostRace } from '../../store/lost-race.js';
import { jobCounterItems } from '../../store/counter-store.js';
import { jobUpdateItem, type StoredJob } from '../../store/review-job-store.js';
import { waitingDeleteItem, waitingOf, waitingPutItem } from '../../store/review-queue-store.js';
import { getReviewer, reviewerClaimItem, reviewerReleaseItem } from '../../store/reviewer-store.js';
import { enforce, loadJob, userCaller } from './acting.js';
import { routeAfter } from './routing.js';

/**
 * ASSIGNED -> IN_REVIEW by the assigned reviewer, or ESCALATED -> IN_REVIEW by a senior who has no active
 * job (it becomes theirs): REVIEW_STARTED.
 */
export async function startJob(deps: Deps, principal: Principal, jobId: string): Promise<StoredJob> {
  const user = userCaller(principal);
  const job = await loadJob(deps, user.firmId, jobId);
  enforce('start', job, user);
  const now = isoNow(deps.clock);
  const escalated = job.status === 'ESCALATED';
  const items: TransactItem[] = [
    jobUpdateItem(deps, job.firmId, job.id, {
      expect: escalated ? { status: job.status } : { status: job.status, assignedTo: user.userId },
      set: {
        status: 'IN_REVIEW',
        ...(escalated ? { assignedReviewerId: user.userId, assignedAt: now } : {}),
      },
      action: { action: 'STARTED', at: now, role: user.role, reviewerId: user.userId },
    }),
  ];
  if (escalated)
    items.push(
      reviewerClaimItem(deps, job.firmId, user.userId, job.id, now, false),
      waitingDeleteItem(deps, 'escalated', job.firmId, waitingOf(job)),
    );
  await appendRecord(
    deps,
    {
      firmId: job.firmId,
      eventType: 'REVIEW_STARTED',
      actor: actorOf(user),
      documentHash: job.documentHash,
      documentMetadata: { ...jobMetadata(job), fromStatus: job.status, reviewerRole: user.role },
      reviewJobId: job.id,
    },
    {
      with: items,
      onConflict: (failed) =>
        new ConflictError(
          failed === 1
            ? 'You already have an active job: complete or escalate it first'
            : 'The job changed meanwhile and can no longer be started',
        ),
    },
  );
  return loadJob(deps, job.firmId, job.id);
}

/** ASSIGNED / IN_REVIEW -> ESCALATED by the assigned reviewer: JOB_ESCALATED; frees the reviewer. */
export async function escalateJob(
  deps: Deps,
  principal: Principal,
  jobId: string,
  reason: string,
): Promise<StoredJob> {
  const user = userCaller(principal);
  const job = await loadJob(deps, user.firmId, jobId);
  enforce('escalate', job, user);
  const now = isoNow(deps.clock);
  await appendRecord(
    deps,
    {
      firmId: job.firmId,
      eventType: 'JOB_ESCALATED',
      actor: actorOf(user),
      documentHash: job.documentHash,
      documentMetadata: { ...jobMetadata(job), reason, fromStatus: job.status, reviewerRole: user.role },
      reviewJobId: job.id,
    },
    {
      with: [
        jobUpdateItem(deps, job.firmId, job.id, {
          expect: { status: job.status, assignedTo: user.userId, undecided: true },
          set: {
            status: 'ESCALATED',
            assignedReviewerId: null,
            assignedAt: null,
            escalatedAt: now,
            escalationReason: reason,
          },
          action: { action: 'ESCALATED', at: now, role: user.role, reviewerId: user.userId },
        }),
        reviewerReleaseItem(deps, job.firmId, user.userId, job.id),
        waitingPutItem(deps, 'escalated', job),
      ],
      onConflict: () => new ConflictError('The job changed meanwhile and can no longer be escalated'),
    },
  );
  await routeAfter(deps, job.firmId);
  return loadJob(deps, job.firmId, job.id);
}

/**
 * Any unfinished job -> CANCELLED, by a firm API key or the user who submitted it; frees the reviewer. The
 * closed set of ledger event types has no cancellation event, so this is a conditional write without one.
 * A failed condition (the job moved since it was read) is a conflict; a transaction that merely collided
 * with another on the same items is decided again on a fresh read.
 */
export async function cancelJob(deps: Deps, principal: Principal, jobId: string): Promise<StoredJob> {
  const job = await retryOnLostRace(
    async () => {
      const current = await loadJob(deps, principal.firmId, jobId);
      enforce('cancel', current, principal);
      const outcome = await writeConditionally(deps, await cancelItems(deps, current));
      if (outcome.status === 'conflict') return LOST_RACE;
      if (outcome.status === 'condition-failed')
        throw new ConflictError('The job changed meanwhile; reload it and retry');
      return current;
    },
    { attempts: 5, exhausted: () => new ConflictError('The job is being changed concurrently; retry') },
  );
  await routeAfter(deps, job.firmId);
  return loadJob(deps, job.firmId, job.id);
}

async function cancelItems(deps: Deps, job: StoredJob): Promise<TransactItem[]> {
  const now = isoNow(deps.clock);
  const items: TransactItem[] = [
    jobUpdateItem(deps, job.firmId, job.id, {
      expect: { status: job.status, undecided: true },
      set: { status: 'CANCELLED' },
      sweep: 'leave',
      action: { action: 'CANCELLED', at: now, role: 'SUBMITTER', reviewerId: job.assignedReviewerId },
    }),
    ...jobCounterItems(deps, job.firmId, job.id, job, { ...job, status: 'CANCELLED' }),
  ];
  if (job.status === 'QUEUED') items.push(waitingDeleteItem(deps, 'queue', job.firmId, waitingOf(job)));
  if (job.status === 'ESCALATED')
    items.push(waitingDeleteItem(deps, 'escalated', job.firmId, waitingOf(job)));
  if (job.assignedReviewerId && (job.status === 'ASSIGNED' || job.status === 'IN_REVIEW')) {
    const reviewer = await getReviewer(deps, job.firmId, job.assignedReviewerId);
    if (reviewer?.activeJobId === job.id)
      items.push(reviewerReleaseItem(deps, job.firmId, reviewer.id, job.id));
  }
  return items;
}
