/**
 * Completing a review: IN_REVIEW -> APPROVED / MODIFIED / REJECTED, in two steps that can each happen once
 * (see completeJob). The SLA sweep's repair pass calls finishCompletion for a completion that stopped
 * between the two.
 */
import { actorOf, type Principal } from '../../domain/auth/principal.js';
import { jobMetadata, type JobOutcome } from '../../domain/review/jobs.js';
import {
  checklistProblems,
  decisionProblems,
  OUTCOME_EVENT,
  OUTCOME_STATUS,
  withCompletion,
  type ChecklistAnswer,
} from '../../domain/review/workflow.js';
import { ConflictError, ValidationError } from '../../errors.js';
import { appendRecord, appendUnlessRaced } from '../../ledger-writer/append.js';
import { isoNow } from '../../ports/clock.js';
import type { Deps } from '../../runtime/deps.js';
import { LOST_RACE, retryOnLostRace, type LostRace } from '../../store/lost-race.js';
import { jobCounterItems } from '../../store/counter-store.js';
import { jobUpdateItem, type StoredJob } from '../../store/review-job-store.js';
import { getReviewer, reviewerReleaseItem } from '../../store/reviewer-store.js';
import { findDocumentType } from '../document-types.js';
import { enforce, loadJob, userCaller } from './acting.js';
import { routeAfter } from './routing.js';

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
 * decision on it is a conflict.
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
    // A retry after step 2 failed: the same reviewer, the same decision, finishes it; anything else conflicts.
    const same =
      pending.actor.id === user.userId &&
      pending.outcome === input.outcome &&
      pending.outcomeReason === outcomeReason &&
      pending.modifications === modifications;
    if (!same) throw new ConflictError('A decision is already recorded for this job');
    return;
  }
  enforce('complete', job, user);

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
          expect: { status: 'IN_REVIEW', assignedTo: user.userId, undecided: true },
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
          },
          sweep: { completionDueAt: decidedAt },
          action: { action: 'COMPLETED', at: decidedAt, role: user.role, reviewerId: user.userId },
        }),
      ],
      onConflict: () => new ConflictError('The job changed meanwhile and can no longer be completed'),
    },
  );
}

/**
 * Step 2 of a completion: the outcome record with the job's final state, freeing the reviewer. Idempotent:
 * a job that is no longer pending is returned as it is. A lost race (the reviewer's user item changed
 * meanwhile, or another finisher won) is decided again on a fresh read.
 */
export function finishCompletion(deps: Deps, firmId: string, jobId: string): Promise<StoredJob> {
  return retryOnLostRace(() => finishOnce(deps, firmId, jobId), {
    attempts: 5,
    exhausted: () => new ConflictError('The job is being completed concurrently; retry'),
  });
}

async function finishOnce(deps: Deps, firmId: string, jobId: string): Promise<StoredJob | LostRace> {
  const job = await loadJob(deps, firmId, jobId);
  const pending = job.pendingCompletion;
  if (job.status !== 'IN_REVIEW' || !pending) return job;
  const reviewer = job.assignedReviewerId ? await getReviewer(deps, firmId, job.assignedReviewerId) : null;
  const release = reviewer?.activeJobId === job.id;
  const record = await appendUnlessRaced(
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
    (record) => [
      jobUpdateItem(deps, firmId, job.id, {
        expect: { status: 'IN_REVIEW', decisionRecordId: pending.reviewCompletedRecordId },
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
        sweep: 'leave',
      }),
      ...jobCounterItems(deps, firmId, job.id, job, {
        ...job,
        status: OUTCOME_STATUS[pending.outcome],
        outcome: pending.outcome,
        annotationCount: pending.annotationCount,
      }),
      ...(release && reviewer
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
  );
  if (record === LOST_RACE) return LOST_RACE;
  return loadJob(deps, firmId, jobId);
}
