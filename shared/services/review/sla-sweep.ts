/**
 * The scheduled SLA sweep of review jobs (functions/workers/review-sla-sweep.ts): SLA_BREACHED for overdue
 * jobs, and the repair of completions that stopped between their two steps.
 */
import { jobMetadata } from '../../domain/review/jobs.js';
import { isUnfinished, UNFINISHED_STATUSES } from '../../domain/review/workflow.js';
import { appendUnlessRaced, type Actor } from '../../ledger-writer/append.js';
import { isoNow } from '../../ports/clock.js';
import type { Deps } from '../../runtime/deps.js';
import { logger } from '../../runtime/logger.js';
import { writeConditionally } from '../../store/conditional-write.js';
import { LOST_RACE } from '../../store/lost-race.js';
import { dueForSweep, getJob, jobUpdateItem } from '../../store/review-job-store.js';
import { finishCompletion } from './completion.js';
import { routeAfter } from './routing.js';

/** The actor of records the service writes on its own (SLA_BREACHED). */
export const SLA_SWEEP_ACTOR: Actor = { id: 'system:review-sla-sweep', name: 'SLA sweep', fcaRef: null };

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

/** SLA_BREACHED for one overdue job; false when there is nothing to record or another sweep recorded it. */
async function breach(deps: Deps, firmId: string, jobId: string): Promise<boolean> {
  const job = await getJob(deps, firmId, jobId);
  if (!job) return false;
  if (job.slaBreachedAt || job.pendingCompletion || !isUnfinished(job.status)) {
    // A stale index entry (the job moved on without leaving the index): drop it so no sweep reads it again.
    if (!job.pendingCompletion)
      await writeConditionally(deps, [
        jobUpdateItem(deps, firmId, jobId, { expect: { status: job.status }, sweep: 'leave' }),
      ]);
    return false;
  }
  const record = await appendUnlessRaced(
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
    (sealed) => [
      jobUpdateItem(deps, firmId, jobId, {
        expect: { status: UNFINISHED_STATUSES, undecided: true, overdueAt: sealed.timestamp },
        set: { slaBreachedAt: sealed.timestamp },
        sweep: 'leave',
        action: { action: 'SLA_BREACHED', at: sealed.timestamp, role: 'SYSTEM', reviewerId: null },
      }),
    ],
  );
  return record !== LOST_RACE;
}
