import { NotFoundError } from '../errors.js';
import type { Deps } from '../runtime/deps.js';
import {
  readCheckpointAt,
  readCosignatures,
  readLatestCheckpoint,
  type StoredCheckpoint,
} from '../store/log-store.js';

/*
 * The checkpoints the log serves (issue 31): a stored checkpoint is the C2SP signed note the integrator signed
 * (checkpoint text and the log's two signature lines, ECDSA 0x02 and Ed25519 0x01); what is served is that note
 * with every witness cosignature gathered for its size appended as further signature lines (C2SP
 * tlog-cosignature: a cosignature is one more signed-note signature line). The note text is never changed, so the
 * log's own signatures stay valid, and a client that knows none of the witnesses still verifies the log's lines.
 */

/** The firm's latest checkpoint; 404 when it has none yet (no record, or its first ones not yet integrated). */
export async function latestCheckpoint(deps: Deps, firmId: string): Promise<StoredCheckpoint> {
  const latest = await readLatestCheckpoint(deps, firmId);
  if (!latest)
    throw new NotFoundError(
      'This firm has no checkpoint yet: its log is empty, or its first records are not yet integrated (within CHECKPOINT_INTERVAL_MS of their commit)',
    );
  return latest;
}

/** The firm's checkpoint of `size`, or undefined when no checkpoint was signed at that size. */
export function checkpointAt(
  deps: Deps,
  firmId: string,
  size: number,
): Promise<StoredCheckpoint | undefined> {
  return readCheckpointAt(deps, firmId, size);
}

/** The signed note of `checkpoint` with every cosignature gathered for its size, in witness key ID order. */
export async function cosignedNote(
  deps: Deps,
  firmId: string,
  checkpoint: StoredCheckpoint,
): Promise<string> {
  const cosignatures = await readCosignatures(deps, firmId, checkpoint.size);
  const lines = [...cosignatures]
    .sort((a, b) => a.witnessKeyId.localeCompare(b.witnessKeyId))
    .map((c) => `${c.line.replace(/\n+$/, '')}\n`);
  return checkpoint.note + lines.join('');
}
