import '../../shared/runtime/aws-deps.js';
import { getDeps } from '../../shared/runtime/deps.js';
import { logger } from '../../shared/runtime/logger.js';
import { sweepOutbox } from '../../shared/services/outbox.js';

/** Scheduled (EventBridge every minute; a timer locally): queues unconfirmed immutable copies for repair. */
export const handler = async (): Promise<{ queued: number }> => {
  const queued = await sweepOutbox(getDeps());
  if (queued > 0)
    logger.warn('Ledger records without a confirmed immutable copy were queued for repair', { queued });
  return { queued };
};
