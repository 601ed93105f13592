/**
 * Routing: the firm's waiting jobs go to free reviewers (rules in shared/domain/review/workflow.ts:
 * planAssignments). Each assignment is one conditional transaction (the job still QUEUED, the reviewer still
 * free, the queue entry still there), so concurrent routers in different processes never both win.
 */
import { planAssignments, type WaitingJob } from '../../domain/review/workflow.js';
import { isoNow } from '../../ports/clock.js';
import type { Deps } from '../../runtime/deps.js';
import { logger } from '../../runtime/logger.js';
import { conditionFailedAt, writeConditionally } from '../../store/conditional-write.js';
import { getJob, jobUpdateItem } from '../../store/review-job-store.js';
import { listWaiting, waitingDeleteItem } from '../../store/review-queue-store.js';
import { listReviewers, reviewerClaimItem } from '../../store/reviewer-store.js';

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
export async function routeAfter(deps: Deps, firmId: string): Promise<void> {
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
    const users = await listReviewers(deps, firmId);
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
  const outcome = await writeConditionally(deps, [
    jobUpdateItem(deps, firmId, entry.jobId, {
      expect: { status: 'QUEUED' },
      set: { status: 'ASSIGNED', assignedReviewerId: userId, assignedAt: now },
      action: { action: 'ASSIGNED', at: now, role: 'SYSTEM', reviewerId: userId },
    }),
    reviewerClaimItem(deps, firmId, userId, entry.jobId, now, true),
    waitingDeleteItem(deps, 'queue', firmId, entry),
  ]);
  if (outcome.status === 'committed') return true;
  if (conditionFailedAt(outcome, 0)) {
    // The job left QUEUED without its queue entry (it should not happen): drop the stale entry.
    const job = await getJob(deps, firmId, entry.jobId);
    if (!job || job.status !== 'QUEUED') {
      logger.warn('Dropping a stale review queue entry', { firmId, jobId: entry.jobId });
      await writeConditionally(deps, [waitingDeleteItem(deps, 'queue', firmId, entry)]);
    }
  }
  return false;
}
