/** The signed-in reviewer's own view and switch: their queue of work, and their availability for routing. */
import { isSenior } from '../../domain/review/workflow.js';
import type { Principal } from '../../domain/auth/principal.js';
import { NotFoundError } from '../../errors.js';
import type { Deps } from '../../runtime/deps.js';
import { writeConditionally } from '../../store/conditional-write.js';
import { getJob, type StoredJob } from '../../store/review-job-store.js';
import { listWaiting } from '../../store/review-queue-store.js';
import { availabilityItem, getReviewer } from '../../store/reviewer-store.js';
import { userCaller } from './acting.js';
import { routeAfter } from './routing.js';

/**
 * The calling user's queue: their active job (ASSIGNED or IN_REVIEW), then, for a LEAD_REVIEWER or
 * FIRM_ADMIN, the escalated jobs they may start (URGENT first, then oldest; not the ones they submitted). Looking at the queue first runs
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
  const me = await getReviewer(deps, user.firmId, user.userId);
  const ids: string[] = [];
  if (me?.activeJobId) ids.push(me.activeJobId);
  if (isSenior(user.role))
    ids.push(
      ...(await listWaiting(deps, user.firmId, 'escalated'))
        .filter((entry) => entry.submittedByUserId !== user.userId)
        .map((entry) => entry.jobId),
    );
  const start = (page - 1) * pageSize;
  const jobs = await Promise.all(
    ids.slice(start, start + pageSize).map((id) => getJob(deps, user.firmId, id)),
  );
  return { jobs: jobs.filter((job): job is StoredJob => job !== null), total: ids.length };
}

/**
 * The calling user's own availability for routing. Becoming available routes waiting work to them at once;
 * becoming unavailable keeps the job they hold (they finish or escalate it) but stops new assignments. The
 * write only sets the flag (conditional on the user being active), so it needs no retry: a failed condition
 * means the user was deactivated meanwhile.
 */
export async function setOwnAvailability(deps: Deps, principal: Principal, isAvailable: boolean) {
  const user = userCaller(principal);
  const current = await getReviewer(deps, user.firmId, user.userId);
  if (!current || current.deactivatedAt) throw new NotFoundError('User not found');
  if (current.isAvailable !== isAvailable) {
    const outcome = await writeConditionally(deps, [
      availabilityItem(deps, user.firmId, user.userId, isAvailable),
    ]);
    if (outcome.status !== 'committed') throw new NotFoundError('User not found');
  }
  if (isAvailable) await routeAfter(deps, user.firmId);
  const after = await getReviewer(deps, user.firmId, user.userId);
  return { isAvailable: after!.isAvailable, activeJobId: after!.activeJobId };
}
