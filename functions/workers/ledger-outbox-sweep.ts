import { ENV, intEnv } from '../../shared/runtime/config.js';
import { logger } from '../../shared/runtime/logger.js';
import { OUTBOX_GRACE_MS, sweepOutbox } from '../../shared/services/outbox.js';
import { scheduledWorker } from '../../shared/workers/handler.js';

/** How old an unconfirmed copy must be before the sweep repairs it (OUTBOX_GRACE_SECONDS, default 30). */
const graceMs = intEnv(ENV.outboxGraceSeconds, OUTBOX_GRACE_MS / 1000) * 1000;

/** Scheduled (EventBridge every minute; a timer locally): queues unconfirmed immutable copies for repair. */
export const handler = scheduledWorker(async (deps): Promise<{ queued: number }> => {
  const queued = await sweepOutbox(deps, graceMs);
  if (queued > 0)
    logger.warn('Ledger records without a confirmed immutable copy were queued for repair', { queued });
  return { queued };
});
