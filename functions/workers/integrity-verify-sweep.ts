import { ENV, intEnv } from '../../shared/runtime/config.js';
import {
  sweepStaleVerifications,
  VERIFY_STALE_MS,
  type VerificationSweepResult,
} from '../../shared/services/integrity/verification-sweep.js';
import { scheduledWorker } from '../../shared/workers/handler.js';

/** How long a run may go without progress before the sweep re-queues it (VERIFY_STALE_SECONDS, default 600). */
const staleMs = intEnv(ENV.verifyStaleSeconds, VERIFY_STALE_MS / 1000) * 1000;

/**
 * Scheduled (EventBridge every minute; a timer locally, VERIFY_SWEEP_INTERVAL_SECONDS): re-queues verification
 * runs left RUNNING without progress, e.g. after the queue refused their continuation
 * (shared/services/integrity/verification-sweep.ts).
 */
export const handler = scheduledWorker((deps): Promise<VerificationSweepResult> =>
  sweepStaleVerifications(deps, staleMs),
);
