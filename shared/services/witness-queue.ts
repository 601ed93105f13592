import type { Deps } from '../runtime/deps.js';

/**
 * A message of the log-witness queue (shared/services/witness-submission.ts): `size` is the checkpoint it was sent
 * for; `witnessKeyId` and `attempt` mark a retry to one witness (2 for the first retry).
 */
export interface WitnessMessage {
  firmId: string;
  size: number;
  witnessKeyId?: string;
  attempt?: number;
}

/** After a checkpoint is stored (the log-checkpoint worker): submit it to the firm's witnesses. */
export function queueWitnessSubmission(deps: Deps, firmId: string, size: number): Promise<void> {
  return deps.queue.send('log-witness', { firmId, size } satisfies WitnessMessage);
}
