/**
 * The reviewer side of review jobs: routing, start, complete, escalate, cancel, the reviewer's queue,
 * re-routing a deactivated reviewer's job and the SLA sweep. Rules live in shared/domain/review/workflow.ts;
 * decisions are documented in docs/architecture.md ("Review workflow").
 *
 * Every move is one DynamoDB transaction whose conditions re-check the state it was decided on (the job's
 * status and assignee, the reviewer's activeJobId), so concurrent callers can never both win; moves that
 * have a ledger event commit it in the same transaction (appendRecord's `with`).
 */
import { actorOf, type Principal } from '../domain/auth/principal.js';
import type { JobOutcome } from '../domain/review/jobs.js';
import {
  checklistProblems,
  decisionProblems,
  isSenior,
  isUnfinished,
  judge,
  OUTCOME_EVENT,
  OUTCOME_STATUS,
  planAssignments,
  withCompletion,
  type Caller,
  type ChecklistAnswer,
  type Verdict,
  type WaitingJob,
} from '../domain/review/workflow.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { isId } from '../ids.js';
import { appendRecord, type Actor } from '../ledger-writer/append.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import type { TransactItem } from '../store/conditional-write.js';
import {
  commitJobWrite,
  dueForSweep,
  getJob,
  jobUpdateItem,
  listWaiting,
  reviewerClaimItem,
  reviewerReleaseItem,
  sweepEntry,
  waitingDeleteItem,
  waitingOf,
  waitingPutItem,
  type ReviewerItem,
  type StoredJob,
} from '../store/review-job-store.js';
import { commitUserWrite, getUserForUpdate, listUsers, userChangeItem } from '../store/user-store.js';
import { findDocumentType } from './document-types.js';

/** The actor of records the service writes on its own (SLA_BREACHED). */
export const SLA_SWEEP_ACTOR: Actor = { id: 'system:review-sla-sweep', name: 'SLA sweep', fcaRef: null };

const NO_PENDING = '(attribute_not_exists(pendingCompletion) OR pendingCompletion = :null)';
const SWEEP_ATTRIBUTES = ['sweepKind', 'sweepDue'];

export async function loadJob(deps: Deps, firmId: string, jobId: string): Promise<StoredJob> {
  const job = isId('job', jobId) ? await getJob(deps, firmId, jobId) : null;
  if (!job) throw new NotFoundError('Review job not found');
  return job;
}

function callerOf(principal: Principal): Caller {
  return principal.kind === 'user'
    ? { kind: 'user', id: principal.userId, role: principal.role }
    : { kind: 'apiKey', id: principal.keyId };
}

function enforce(verdict: Verdict): void {
  if (verdict.ok) return;
  throw verdict.status === 403 ? new ForbiddenError(verdict.message) : new ConflictError(verdict.message);
}

function facts(job: StoredJob) {
  return {
    status: job.status,
    assignedReviewerId: job.assignedReviewerId,
    requiresSeniorSignOff: job.requiresSeniorSignOff,
    decisionPending: Boolean(job.pendingCompletion),
    submittedBy: job.submittedBy ?? null,
  };
}

function userCaller(principal: Principal) {
  if (principal.kind !== 'user') throw new ForbiddenError('Reviewer actions need a signed-in user');
  return principal;
}

function jobMetadata(job: StoredJob) {
  return { jobId: job.id, documentReference: job.documentReference, documentType: job.documentType };
}

// -------------------------------------------------------------------------------------------- routing

interface RoutingRun {
  promise: Promise<number>;
  again: boolean;
}
const routingRuns = new WeakMap<Deps, Map<string, RoutingRun>>();

/**
 * Assigns the firm's waiting jobs to free reviewers; returns how many it assigned. Calls for a firm while a
 * run is under way in this process join it and make it go round once more (so their change is seen),
 * instead of racing it; runs in different processes are kept apart by the transactions' conditions.
 */
export function routeFirm(deps: Deps, firmId: string): Promise<number> {
  let runs = routingRuns.get(deps);
  if (!runs) routingRuns.set(deps, (runs = new Map()));
  const current = runs.get(firmId);
  if (current) {
    current.again = true;
    return current.promise;
  }
  const run: RoutingRun = { again: false, promise: Promise.resolve(0) };
  const firmRuns = runs;
  run.promise = (async () => {
    let assigned = 0;
    try {
      do {
        run.again = false;
        assigned += await routeOnce(deps, firmId);
      } while (run.again);
    } finally {
      firmRuns.delete(firmId);
    }
    return assigned;
  })();
  runs.set(firmId, run);
  return run.promise;
}

/** Routing after a committed change: a failure is logged, never undoes or fails the change. */
async function routeAfter(deps: Deps, firmId: string): Promise<void> {
  try {
    await routeFirm(deps, firmId);
  } catch (error) {
    logger.error('Routing review jobs failed; they wait for the next trigger', {
      firmId,
      error: error as Error,
    });
  }
}

const ROUTING_ROUNDS = 10;

async function routeOnce(deps: Deps, firmId: string): Promise<number> {
  let assigned = 0;
  for (let round = 1; round <= ROUTING_ROUNDS; round++) {
    const waiting = await listWaiting(deps, firmId, 'queue');
    if (waiting.length === 0) break;
    const users = (await listUsers(deps, firmId)) as unknown as ReviewerItem[];
    const now = isoNow(deps.clock);
    const plan = planAssignments(waiting, users, now);
    if (plan.length === 0) break;
    const byId = new Map(waiting.map((entry) => [entry.jobId, entry]));
    let lost = false;
    for (const { jobId, userId } of plan) {
      if (await assign(deps, firmId, byId.get(jobId)!, userId, now)) assigned++;
      else lost = true;
    }
    // Without a lost race every job that anyone free may take was assigned: another round finds nothing.
    if (!lost) break;
  }
  return assigned;
}

/** QUEUED -> ASSIGNED, the user's activeJobId and the queue entry in one conditional transaction. */
async function assign(
  deps: Deps,
  firmId: string,
  entry: WaitingJob,
  userId: string,
  now: string,
): Promise<boolean> {
  const result = await commitJobWrite(deps, [
    jobUpdateItem(deps, firmId, entry.jobId, {
      condition: '#status = :queued',
      values: { ':queued': 'QUEUED' },
      set: { status: 'ASSIGNED', assignedReviewerId: userId, assignedAt: now },
      action: { action: 'ASSIGNED', at: now, role: 'SYSTEM', reviewerId: userId },
    }),
    reviewerClaimItem(deps, firmId, userId, entry.jobId, now, true),
    waitingDeleteItem(deps, 'queue', firmId, entry),
  ]);
  if (result === 'done') return true;
  if (result.failedItem === 0) {
    // The job left QUEUED without its queue entry (it should not happen): drop the stale entry.
    const job = await getJob(deps, firmId, entry.jobId);
    if (!job || job.status !== 'QUEUED') {
      logger.warn('Dropping a stale review queue entry', { firmId, jobId: entry.jobId });
      await commitJobWrite(deps, [waitingDeleteItem(deps, 'queue', firmId, entry)]);
    }
  }
  return false;
}

// ------------------------------------------------------------------------------------- reviewer moves

/**
 * ASSIGNED -> IN_REVIEW by the assigned reviewer, or ESCALATED -> IN_REVIEW by a senior who has no active
 * job (it becomes theirs): REVIEW_STARTED.
 */
export async function startJob(deps: Deps, principal: Principal, jobId: string): Promise<StoredJob> {
  const user = userCaller(principal);
  const job = await loadJob(deps, user.firmId, jobId);
  enforce(judge('start', facts(job), callerOf(user)));
  const now = isoNow(deps.clock);
  const escalated = job.status === 'ESCALATED';
  const items: TransactItem[] = [
    jobUpdateItem(deps, job.firmId, job.id, {
      condition: escalated ? '#status = :from' : '#status = :from AND assignedReviewerId = :me',
      values: { ':from': job.status, ...(escalated ? {} : { ':me': user.userId }) },
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

export interface CompleteInput {
  outcome: JobOutcome;
  outcomeReason?: string | null | undefined;
  modifications?: string | null | undefined;
  checklist?: ChecklistAnswer[] | undefined;
  annotations?: { page?: number | undefined; text: string }[] | undefined;
}

/**
 * IN_REVIEW -> APPROVED / MODIFIED / REJECTED. Two records, written in two transactions:
 *
 * 1. REVIEW_COMPLETED commits with the decision stored on the job as `pendingCompletion` (status stays
 *    IN_REVIEW; the job moves from the SLA sweep's index to its COMPLETION entries). Its condition (IN_REVIEW,
 *    assigned to the caller, no decision yet) makes a second decision impossible.
 * 2. The outcome record commits with the final state (status, outcome, completedAt, ledgerRecordId = the
 *    outcome record's id) and frees the reviewer, conditional on the pending decision naming that
 *    REVIEW_COMPLETED record: it can happen exactly once.
 *
 * A crash between the two leaves the decision recorded and visibly pending, never lost or doubled: the
 * reviewer's retry of the same decision, or the SLA sweep's repair pass, writes step 2 (finishCompletion).
 */
export async function completeJob(
  deps: Deps,
  principal: Principal,
  jobId: string,
  input: CompleteInput,
): Promise<StoredJob> {
  const user = userCaller(principal);
  await recordDecision(deps, user, jobId, input);
  const done = await finishCompletion(deps, user.firmId, jobId);
  await routeAfter(deps, user.firmId);
  return done;
}

/**
 * Step 1 of a completion: validates the decision and commits REVIEW_COMPLETED with it (pendingCompletion).
 * A job already holding the same reviewer's identical decision is left as it is (a retry); any other
 * decision on it is 409.
 */
export async function recordDecision(
  deps: Deps,
  principal: Principal,
  jobId: string,
  input: CompleteInput,
): Promise<void> {
  const user = userCaller(principal);
  const job = await loadJob(deps, user.firmId, jobId);
  const problems = decisionProblems(input);
  if (input.checklist) {
    const type = await findDocumentType(deps, job.firmId, job.documentType);
    problems.push(...checklistProblems(type?.checklistItems ?? [], input.checklist));
  }
  if (problems.length) throw new ValidationError('Invalid completion', problems);

  const outcomeReason = input.outcomeReason?.trim() ? input.outcomeReason : null;
  const modifications = input.outcome === 'APPROVED_WITH_MODIFICATIONS' ? input.modifications! : null;
  const pending = job.pendingCompletion;
  if (pending && job.status === 'IN_REVIEW') {
    // A retry after step 2 failed: the same reviewer, the same decision, finishes it; anything else is 409.
    const same =
      pending.actor.id === user.userId &&
      pending.outcome === input.outcome &&
      pending.outcomeReason === outcomeReason &&
      pending.modifications === modifications;
    if (!same) throw new ConflictError('A decision is already recorded for this job');
    return;
  }
  enforce(judge('complete', facts(job), callerOf(user)));

  const decidedAt = isoNow(deps.clock);
  const annotations = input.annotations ?? [];
  await appendRecord(
    deps,
    {
      firmId: job.firmId,
      eventType: 'REVIEW_COMPLETED',
      actor: actorOf(user),
      documentHash: job.documentHash,
      documentMetadata: {
        ...jobMetadata(job),
        outcome: input.outcome,
        outcomeReason,
        modifications,
        checklist: input.checklist ?? null,
        annotations,
        annotationCount: annotations.length,
        reviewerRole: user.role,
      },
      reviewJobId: job.id,
    },
    {
      with: (record) => [
        jobUpdateItem(deps, job.firmId, job.id, {
          condition: `#status = :inReview AND assignedReviewerId = :me AND ${NO_PENDING}`,
          values: { ':inReview': 'IN_REVIEW', ':me': user.userId },
          set: {
            pendingCompletion: {
              outcome: input.outcome,
              outcomeReason,
              modifications,
              annotationCount: annotations.length,
              reviewCompletedRecordId: record.id,
              decidedAt,
              actor: actorOf(user),
              role: user.role,
            },
            ...sweepEntry('COMPLETION', decidedAt, job.firmId, job.id),
          },
          action: { action: 'COMPLETED', at: decidedAt, role: user.role, reviewerId: user.userId },
        }),
      ],
      onConflict: () => new ConflictError('The job changed meanwhile and can no longer be completed'),
    },
  );
}

class CompletionRaced extends Error {}

/**
 * Step 2 of a completion: the outcome record with the job's final state, freeing the reviewer. Idempotent:
 * a job that is no longer pending is returned as it is.
 */
export async function finishCompletion(deps: Deps, firmId: string, jobId: string): Promise<StoredJob> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    const job = await loadJob(deps, firmId, jobId);
    const pending = job.pendingCompletion;
    if (job.status !== 'IN_REVIEW' || !pending) return job;
    const reviewer = job.assignedReviewerId
      ? ((await getUserForUpdate(deps, firmId, job.assignedReviewerId)) as unknown as ReviewerItem | null)
      : null;
    const release = reviewer?.activeJobId === job.id;
    try {
      await appendRecord(
        deps,
        {
          firmId,
          eventType: OUTCOME_EVENT[pending.outcome],
          actor: pending.actor,
          documentHash: job.documentHash,
          documentMetadata: {
            ...jobMetadata(job),
            outcome: pending.outcome,
            outcomeReason: pending.outcomeReason,
            modifications: pending.modifications,
            reviewCompletedRecordId: pending.reviewCompletedRecordId,
            reviewerRole: pending.role,
            decidedAt: pending.decidedAt,
          },
          reviewJobId: job.id,
        },
        {
          with: (record) => [
            jobUpdateItem(deps, firmId, job.id, {
              condition: '#status = :inReview AND pendingCompletion.reviewCompletedRecordId = :rc',
              values: { ':inReview': 'IN_REVIEW', ':rc': pending.reviewCompletedRecordId },
              set: {
                status: OUTCOME_STATUS[pending.outcome],
                outcome: pending.outcome,
                outcomeReason: pending.outcomeReason,
                modifications: pending.modifications,
                annotationCount: pending.annotationCount,
                completedAt: pending.decidedAt,
                ledgerRecordId: record.id,
                pendingCompletion: null,
              },
              remove: SWEEP_ATTRIBUTES,
            }),
            ...(release
              ? [
                  reviewerReleaseItem(
                    deps,
                    firmId,
                    reviewer.id,
                    job.id,
                    withCompletion(reviewer.recentCompletions, pending.decidedAt),
                  ),
                ]
              : []),
          ],
          onConflict: () => new CompletionRaced(),
        },
      );
      return loadJob(deps, firmId, jobId);
    } catch (error) {
      if (!(error instanceof CompletionRaced)) throw error;
    }
  }
  throw new ConflictError('The job is being completed concurrently; retry');
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
  enforce(judge('escalate', facts(job), callerOf(user)));
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
          condition: `#status = :from AND assignedReviewerId = :me AND ${NO_PENDING}`,
          values: { ':from': job.status, ':me': user.userId },
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
 */
export async function cancelJob(deps: Deps, principal: Principal, jobId: string): Promise<StoredJob> {
  const job = await loadJob(deps, principal.firmId, jobId);
  enforce(judge('cancel', facts(job), callerOf(principal)));
  const now = isoNow(deps.clock);
  const items: TransactItem[] = [
    jobUpdateItem(deps, job.firmId, job.id, {
      condition: `#status = :from AND ${NO_PENDING}`,
      values: { ':from': job.status },
      set: { status: 'CANCELLED' },
      remove: SWEEP_ATTRIBUTES,
      action: {
        action: 'CANCELLED',
        at: now,
        role: 'SUBMITTER',
        reviewerId: job.assignedReviewerId,
      },
    }),
  ];
  if (job.status === 'QUEUED') items.push(waitingDeleteItem(deps, 'queue', job.firmId, waitingOf(job)));
  if (job.status === 'ESCALATED')
    items.push(waitingDeleteItem(deps, 'escalated', job.firmId, waitingOf(job)));
  if (job.assignedReviewerId && (job.status === 'ASSIGNED' || job.status === 'IN_REVIEW')) {
    const reviewer = await getUserForUpdate(deps, job.firmId, job.assignedReviewerId);
    if (reviewer?.activeJobId === job.id)
      items.push(reviewerReleaseItem(deps, job.firmId, reviewer.id, job.id));
  }
  const result = await commitJobWrite(deps, items);
  if (result !== 'done') throw new ConflictError('The job changed meanwhile; reload it and retry');
  await routeAfter(deps, job.firmId);
  return loadJob(deps, job.firmId, job.id);
}

/**
 * The calling user's queue: their active job (ASSIGNED or IN_REVIEW), then, for a LEAD_REVIEWER or
 * FIRM_ADMIN, the escalated jobs they may start (URGENT first, then oldest). Looking at the queue first runs
 * routing, which is how a reviewer who has just signed in (or became free) pulls waiting work.
 */
export async function reviewerQueue(
  deps: Deps,
  principal: Principal,
  page: number,
  pageSize: number,
): Promise<{ jobs: StoredJob[]; total: number }> {
  const user = userCaller(principal);
  await routeAfter(deps, user.firmId);
  const me = await getUserForUpdate(deps, user.firmId, user.userId);
  const ids: string[] = [];
  if (me?.activeJobId) ids.push(me.activeJobId);
  if (isSenior(user.role))
    ids.push(...(await listWaiting(deps, user.firmId, 'escalated')).map((entry) => entry.jobId));
  const start = (page - 1) * pageSize;
  const jobs = await Promise.all(
    ids.slice(start, start + pageSize).map((id) => getJob(deps, user.firmId, id)),
  );
  return { jobs: jobs.filter((job): job is StoredJob => job !== null), total: ids.length };
}

/**
 * The calling user's own availability for routing. Becoming available routes waiting work to them at once;
 * becoming unavailable keeps the job they hold (they finish or escalate it) but stops new assignments.
 */
export async function setOwnAvailability(deps: Deps, principal: Principal, isAvailable: boolean) {
  const user = userCaller(principal);
  for (let attempt = 1; attempt <= 5; attempt++) {
    const current = await getUserForUpdate(deps, user.firmId, user.userId);
    if (!current || current.deactivatedAt) throw new NotFoundError('User not found');
    if (current.isAvailable === isAvailable) break;
    const result = await commitUserWrite(deps, [userChangeItem(deps, current, { isAvailable })]);
    if (result === 'done') break;
    if (attempt === 5) throw new ConflictError('The user was changed concurrently; retry');
  }
  if (isAvailable) await routeAfter(deps, user.firmId);
  const after = await getUserForUpdate(deps, user.firmId, user.userId);
  return { isAvailable: after!.isAvailable, activeJobId: after!.activeJobId };
}

// ------------------------------------------------------------------------------- deactivation re-route

/**
 * A deactivated reviewer's active job goes back where it came from (QUEUED, or ESCALATED if it had been
 * escalated) and the user's activeJobId is cleared, in one transaction; then routing runs. A job whose
 * decision is already recorded is left to finish (the SLA sweep's repair pass writes its outcome).
 */
export async function releaseDeactivatedReviewer(
  deps: Deps,
  firmId: string,
  userId: string,
  jobId: string,
): Promise<void> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    const [job, user] = await Promise.all([
      getJob(deps, firmId, jobId),
      getUserForUpdate(deps, firmId, userId),
    ]);
    if (!user || user.activeJobId !== jobId) break;
    const holds =
      job?.assignedReviewerId === userId && (job.status === 'ASSIGNED' || job.status === 'IN_REVIEW');
    if (job && holds && job.pendingCompletion) break;
    const items: TransactItem[] = [reviewerReleaseItem(deps, firmId, userId, jobId)];
    if (job && holds) {
      const back = job.escalatedAt ? 'escalated' : 'queue';
      const now = isoNow(deps.clock);
      items.unshift(
        jobUpdateItem(deps, firmId, job.id, {
          condition: `#status = :from AND assignedReviewerId = :user AND ${NO_PENDING}`,
          values: { ':from': job.status, ':user': userId },
          set: {
            status: back === 'queue' ? 'QUEUED' : 'ESCALATED',
            assignedReviewerId: null,
            assignedAt: null,
          },
          action: { action: 'REQUEUED', at: now, role: 'SYSTEM', reviewerId: userId },
        }),
        waitingPutItem(deps, back, job),
      );
    }
    if ((await commitJobWrite(deps, items)) === 'done') break;
  }
  await routeAfter(deps, firmId);
}

// ------------------------------------------------------------------------------------------ SLA sweep

class AlreadyBreached extends Error {}

export interface SweepResult {
  breached: number;
  repaired: number;
}

/** Jobs handled per sweep and kind; the rest waits for the next sweep (they stay in the index). */
export const SWEEP_BATCH = 200;

/**
 * The scheduled sweep. (1) Every unfinished, undecided job past its slaDeadline gets SLA_BREACHED, committed
 * with `slaBreachedAt` on the job under the condition that it is not set yet: however many sweeps run at
 * once, exactly one record per job. (2) Decisions recorded more than `repairGraceMs` ago without their
 * outcome record (a crash between the two completion steps) are finished. Candidates come from a sparse
 * index holding only unfinished jobs and pending completions, queried by due time: each run reads only
 * what it has to act on.
 */
export async function sweepReviewJobs(deps: Deps, repairGraceMs: number): Promise<SweepResult> {
  const now = isoNow(deps.clock);
  let breached = 0;
  for (const { firmId, jobId } of await dueForSweep(deps, 'SLA', now, SWEEP_BATCH)) {
    try {
      if (await breach(deps, firmId, jobId)) breached++;
    } catch (error) {
      logger.error('Recording an SLA breach failed; the next sweep retries', {
        firmId,
        jobId,
        error: error as Error,
      });
    }
  }
  let repaired = 0;
  const before = new Date(Date.parse(now) - repairGraceMs).toISOString();
  for (const { firmId, jobId } of await dueForSweep(deps, 'COMPLETION', before, SWEEP_BATCH)) {
    try {
      const job = await getJob(deps, firmId, jobId);
      if (job?.pendingCompletion && job.status === 'IN_REVIEW') {
        logger.warn('Finishing a review completion that stopped after REVIEW_COMPLETED', { firmId, jobId });
        await finishCompletion(deps, firmId, jobId);
        repaired++;
        await routeAfter(deps, firmId);
      }
    } catch (error) {
      logger.error('Finishing a pending completion failed; the next sweep retries', {
        firmId,
        jobId,
        error: error as Error,
      });
    }
  }
  return { breached, repaired };
}

async function breach(deps: Deps, firmId: string, jobId: string): Promise<boolean> {
  const job = await getJob(deps, firmId, jobId);
  if (!job) return false;
  if (job.slaBreachedAt || job.pendingCompletion || !isUnfinished(job.status)) {
    // A stale index entry (the job moved on without leaving the index): drop it so no sweep reads it again.
    if (!job.pendingCompletion)
      await commitJobWrite(deps, [
        jobUpdateItem(deps, firmId, jobId, {
          condition: '#status = :status',
          values: { ':status': job.status },
          remove: SWEEP_ATTRIBUTES,
        }),
      ]);
    return false;
  }
  try {
    await appendRecord(
      deps,
      {
        firmId,
        eventType: 'SLA_BREACHED',
        actor: SLA_SWEEP_ACTOR,
        documentHash: job.documentHash,
        documentMetadata: {
          ...jobMetadata(job),
          priority: job.priority,
          status: job.status,
          submittedAt: job.submittedAt,
          slaDeadline: job.slaDeadline,
        },
        reviewJobId: job.id,
      },
      {
        with: (record) => [
          jobUpdateItem(deps, firmId, jobId, {
            condition: `(attribute_not_exists(slaBreachedAt) OR slaBreachedAt = :null) AND #status IN (:q, :a, :i, :e) AND ${NO_PENDING} AND slaDeadline < :at`,
            values: {
              ':q': 'QUEUED',
              ':a': 'ASSIGNED',
              ':i': 'IN_REVIEW',
              ':e': 'ESCALATED',
              ':at': record.timestamp,
            },
            set: { slaBreachedAt: record.timestamp },
            remove: SWEEP_ATTRIBUTES,
            action: { action: 'SLA_BREACHED', at: record.timestamp, role: 'SYSTEM', reviewerId: null },
          }),
        ],
        onConflict: () => new AlreadyBreached(),
      },
    );
    return true;
  } catch (error) {
    if (error instanceof AlreadyBreached) return false;
    throw error;
  }
}
