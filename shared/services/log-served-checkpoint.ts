import { NotFoundError } from '../errors.js';
import type { Deps } from '../runtime/deps.js';
import {
  readCheckpointAt,
  readCosignatures,
  readLatestCheckpoint,
  readLatestCosigned,
  type StoredCheckpoint,
  type StoredCosignature,
} from '../store/log-store.js';

/*
 * The checkpoints the log serves (issue 31): a stored checkpoint is the C2SP signed note the integrator signed
 * (checkpoint text and the log's two signature lines, ECDSA 0x02 and Ed25519 0x01); what is served is that note
 * with every witness cosignature gathered for its size appended as further signature lines (C2SP
 * tlog-cosignature: a cosignature is one more signed-note signature line). The note text is never changed, so the
 * log's own signatures stay valid, and a client that knows none of the witnesses still verifies the log's lines.
 */

const NO_CHECKPOINT_YET =
  'This firm has no checkpoint yet: its log is empty, or its first records are not yet integrated (within CHECKPOINT_INTERVAL_MS of their commit)';

/** The firm's latest checkpoint; 404 when it has none yet (no record, or its first ones not yet integrated). */
export async function latestCheckpoint(deps: Deps, firmId: string): Promise<StoredCheckpoint> {
  const latest = await readLatestCheckpoint(deps, firmId);
  if (!latest) throw new NotFoundError(NO_CHECKPOINT_YET);
  return latest;
}

/**
 * The signed note of the firm's latest checkpoint with every cosignature gathered (GET /v1/ledger/log/checkpoint,
 * which monitors poll): one read, the cosignatures being kept beside it; 404 when it has none yet.
 */
export async function latestCosignedNote(deps: Deps, firmId: string): Promise<string> {
  const latest = await readLatestCosigned(deps, firmId);
  if (!latest) throw new NotFoundError(NO_CHECKPOINT_YET);
  return cosignedNote(deps, firmId, latest.checkpoint, latest.cosignatures);
}

/** The firm's checkpoint of `size`, or undefined when no checkpoint was signed at that size. */
export function checkpointAt(
  deps: Deps,
  firmId: string,
  size: number,
): Promise<StoredCheckpoint | undefined> {
  return readCheckpointAt(deps, firmId, size);
}

/**
 * The signed note of `checkpoint` with every cosignature gathered for its size, in witness key ID order: those
 * given (`known`, read with it), else read by size.
 */
export async function cosignedNote(
  deps: Deps,
  firmId: string,
  checkpoint: StoredCheckpoint,
  known?: StoredCosignature[],
): Promise<string> {
  const cosignatures = known ?? (await readCosignatures(deps, firmId, checkpoint.size));
  const lines = [...cosignatures]
    .sort((a, b) => a.witnessKeyId.localeCompare(b.witnessKeyId))
    .map((c) => `${c.line.replace(/\n+$/, '')}\n`);
  return checkpoint.note + lines.join('');
}
