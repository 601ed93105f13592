/**
 * What every move on a review job starts with: the job loaded within the caller's firm, the caller and the
 * job's facts as the workflow rules (shared/domain/review/workflow.ts) see them, and the rules' verdict
 * enforced as a domain error.
 */
import type { Principal } from '../../domain/auth/principal.js';
import { judge, type Caller, type JobAction, type JobFacts } from '../../domain/review/workflow.js';
import { ConflictError, ForbiddenError, NotFoundError, SubmitterCannotReviewError } from '../../errors.js';
import { isId } from '../../ids.js';
import type { Deps } from '../../runtime/deps.js';
import { getJob, type StoredJob } from '../../store/review-job-store.js';

/** A job of the firm; 404 for an unknown id or another firm's job. */
export async function loadJob(deps: Deps, firmId: string, jobId: string): Promise<StoredJob> {
  const job = isId('job', jobId) ? await getJob(deps, firmId, jobId) : null;
  if (!job) throw new NotFoundError('Review job not found');
  return job;
}

/** Reviewer moves are a signed-in user's; an API key is refused. */
export function userCaller(principal: Principal) {
  if (principal.kind !== 'user') throw new ForbiddenError('Reviewer actions need a signed-in user');
  return principal;
}

/** Throws unless the workflow rules allow `principal` to take `action` on `job`. */
export function enforce(action: JobAction, job: StoredJob, principal: Principal): void {
  const verdict = judge(action, factsOf(job), callerOf(principal));
  if (verdict.ok) return;
  if (verdict.refusal === 'submitter') throw new SubmitterCannotReviewError(verdict.message);
  throw verdict.refusal === 'forbidden'
    ? new ForbiddenError(verdict.message)
    : new ConflictError(verdict.message);
}

function callerOf(principal: Principal): Caller {
  return principal.kind === 'user'
    ? { kind: 'user', id: principal.userId, role: principal.role }
    : { kind: 'apiKey', id: principal.keyId };
}

function factsOf(job: StoredJob): JobFacts {
  return {
    status: job.status,
    assignedReviewerId: job.assignedReviewerId,
    requiresSeniorSignOff: job.requiresSeniorSignOff,
    decisionPending: Boolean(job.pendingCompletion),
    submittedBy: job.submittedBy ?? null,
  };
}
