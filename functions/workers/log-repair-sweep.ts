import { logger } from '../../shared/runtime/logger.js';
import { repairLogs, type LogRepairResult } from '../../shared/services/log-repair.js';
import { scheduledWorker } from '../../shared/workers/handler.js';

/**
 * Scheduled (EventBridge every minute; a timer locally, LOG_REPAIR_INTERVAL_SECONDS): queues a log checkpoint
 * for every firm whose verifiable log is behind its ledger (shared/services/log-repair.ts).
 */
export const handler = scheduledWorker(async (deps): Promise<LogRepairResult> => {
  const result = await repairLogs(deps);
  if (result.triggered.length > 0)
    logger.info('Log repair sweep queued firms behind their ledgers', { firms: result.triggered.length });
  return result;
});
