import type { Deps } from '../runtime/deps.js';
import { listWitnesses } from '../store/witness-store.js';
import { platformWitnesses } from './witness-registry.js';

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

/**
 * After a checkpoint is stored (the log-checkpoint worker): submit it to the firm's witnesses, when it has any
 * (the platform's, or its own: one strongly consistent Query, so a witness registered now gets this checkpoint).
 * A firm without witnesses costs no message: a busy firm stores a checkpoint every interval, and each message was
 * an invocation of the log-witness worker reading the latest checkpoint, the witnesses and their states to find
 * none (docs/benchmarks.md, the append floor).
 */
export async function queueWitnessSubmission(deps: Deps, firmId: string, size: number): Promise<void> {
  if (platformWitnesses().length === 0 && (await listWitnesses(deps, firmId)).length === 0) return;
  await deps.queue.send('log-witness', { firmId, size } satisfies WitnessMessage);
}
