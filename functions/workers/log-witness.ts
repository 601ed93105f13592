import type { WitnessMessage } from '../../shared/services/witness-queue.js';
import { submitToWitnesses } from '../../shared/services/witness-submission.js';
import { queueWorker } from '../../shared/workers/handler.js';

/**
 * Consumes the log-witness queue: submits a firm's latest checkpoint to its witnesses and the platform's, and
 * keeps their verified cosignatures (shared/services/witness-submission.ts).
 */
export const handler = queueWorker<WitnessMessage>(
  async (deps, message) => {
    await submitToWitnesses(deps, message);
  },
  { failureLog: 'Submitting a checkpoint to witnesses failed' },
);
