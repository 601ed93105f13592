/** Re-routing the job a deactivated reviewer still holds (called after the deactivation commits). */
import { ConflictError } from '../../errors.js';
import { isoNow } from '../../ports/clock.js';
import type { Deps } from '../../runtime/deps.js';
import { writeConditionally, type TransactItem } from '../../store/conditional-write.js';
import { LOST_RACE, retryOnLostRace } from '../../store/lost-race.js';
import { getJob, jobUpdateItem } from '../../store/review-job-store.js';
import { waitingPutItem } from '../../store/review-queue-store.js';
import { getReviewer, reviewerReleaseItem } from '../../store/reviewer-store.js';
import { routeAfter } from './routing.js';

/**
 * A deactivated reviewer's active job goes back where it came from (QUEUED, or ESCALATED if it had been
 * escalated) and the user's activeJobId is cleared, in one transaction; then routing runs. A job whose
 * decision is already recorded is left to finish (the SLA sweep's repair pass writes its outcome). A lost
 * race is decided again on a fresh read; should every attempt lose, the caller gets a conflict and a
 * repeated deactivation (idempotent) tries again.
 */
export async function releaseDeactivatedReviewer(
  deps: Deps,
  firmId: string,
  userId: string,
  jobId: string,
): Promise<void> {
  await retryOnLostRace(() => releaseOnce(deps, firmId, userId, jobId), {
    attempts: 5,
    exhausted: () => new ConflictError("The deactivated user's job changed concurrently; retry"),
  });
  await routeAfter(deps, firmId);
}

async function releaseOnce(deps: Deps, firmId: string, userId: string, jobId: string) {
  const [job, user] = await Promise.all([getJob(deps, firmId, jobId), getReviewer(deps, firmId, userId)]);
  if (!user || user.activeJobId !== jobId) return;
  const holds =
    job?.assignedReviewerId === userId && (job.status === 'ASSIGNED' || job.status === 'IN_REVIEW');
  if (job && holds && job.pendingCompletion) return;
  const items: TransactItem[] = [reviewerReleaseItem(deps, firmId, userId, jobId)];
  if (job && holds) {
    const back = job.escalatedAt ? 'escalated' : 'queue';
    const now = isoNow(deps.clock);
    items.unshift(
      jobUpdateItem(deps, firmId, job.id, {
        expect: { status: job.status, assignedTo: userId, undecided: true },
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
  const outcome = await writeConditionally(deps, items);
  return outcome.status === 'committed' ? undefined : LOST_RACE;
}
