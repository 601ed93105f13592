import { ENV, intEnv } from '../../shared/runtime/config.js';
import { logger } from '../../shared/runtime/logger.js';
import { sweepReviewJobs, type SweepResult } from '../../shared/services/review/sla-sweep.js';
import { scheduledWorker } from '../../shared/workers/handler.js';

/**
 * How old a recorded decision without its outcome record must be before the sweep finishes it
 * (COMPLETION_REPAIR_GRACE_SECONDS, default 30): a completion in flight is left to its own request.
 */
const graceMs = intEnv(ENV.completionRepairGraceSeconds, 30) * 1000;

/** Scheduled (EventBridge every minute; a timer locally, SLA_SWEEP_INTERVAL_SECONDS): the review SLA sweep. */
export const handler = scheduledWorker(async (deps): Promise<SweepResult> => {
  const result = await sweepReviewJobs(deps, graceMs);
  if (result.breached > 0 || result.repaired > 0) logger.info('Review SLA sweep', { ...result });
  return result;
});
