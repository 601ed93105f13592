import { runLogCheckpoint, type LogCheckpointMessage } from '../../shared/services/log-checkpoint-run.js';
import { queueWorker } from '../../shared/workers/handler.js';
import { LOG_CHECKPOINT_TIMEOUT_SECONDS } from '../../shared/workers/table.js';

/** Work per delivery, well inside the function's timeout; a longer build re-queues itself. */
const BUDGET_MS = (LOG_CHECKPOINT_TIMEOUT_SECONDS - 30) * 1000;

/**
 * Consumes the log-checkpoint queue: integrates the firm's committed records into its verifiable log and signs
 * a checkpoint (shared/services/log-checkpoint-run.ts).
 */
export const handler = queueWorker<LogCheckpointMessage>(
  async (deps, message) => {
    await runLogCheckpoint(deps, message, BUDGET_MS);
  },
  { failureLog: 'Integrating and signing a firm’s verifiable log failed' },
);
