import { ENV, intEnv } from '../../shared/runtime/config.js';
import { logger } from '../../shared/runtime/logger.js';
import {
  reconcileDueFirms,
  type ReconcileRunResult,
} from '../../shared/services/integrity/backup-reconcile.js';
import { scheduledWorker } from '../../shared/workers/handler.js';
import { BACKUP_RECONCILE_TIMEOUT_SECONDS } from '../../shared/workers/table.js';

/** A firm is reconciled again once its last reconciliation is this old (RECONCILE_MAX_AGE_HOURS, 24). */
const maxAgeMs = intEnv(ENV.backupReconcileMaxAgeHours, 24) * 3_600_000;
/** Firms are started until a minute before the function's timeout; the rest wait for the next run. */
const budgetMs = (BACKUP_RECONCILE_TIMEOUT_SECONDS - 60) * 1000;

/**
 * Scheduled (EventBridge every 30 minutes; a timer locally, RECONCILE_INTERVAL_SECONDS): reconciles the firms
 * whose backup reconciliation is due (shared/services/integrity/backup-reconcile.ts).
 */
export const handler = scheduledWorker(async (deps): Promise<ReconcileRunResult> => {
  const result = await reconcileDueFirms(deps, { maxAgeMs, budgetMs });
  if (result.reconciled.length > 0 || result.failed.length > 0)
    logger.info('Backup reconciliation', {
      reconciled: result.reconciled.length,
      failed: result.failed.length,
      skipped: result.skipped,
    });
  return result;
});
