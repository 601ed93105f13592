import {
  continueVerification,
  type ContinueMessage,
} from '../../shared/services/integrity/verification-runs.js';
import { queueWorker } from '../../shared/workers/handler.js';

/** Work per delivery, well inside the function's timeout; an unfinished run re-queues itself. */
const BUDGET_MS = 90_000;

/** Consumes the integrity-verify queue: continues each verification run from its saved cursor. */
export const handler = queueWorker<ContinueMessage>(
  (deps, message) => continueVerification(deps, message, BUDGET_MS),
  { failureLog: 'Continuing a verification failed' },
);
