import { parseCheckpoint } from '../domain/tlog/checkpoint.js';
import { encodeBase64 } from '../domain/tlog/encoding.js';
import { cachedTileReader } from '../domain/tlog/tile-cache.js';
import { parseNote } from '../domain/tlog/note.js';
import { consistencyProof, inclusionProof } from '../domain/tlog/tree.js';
import { ValidationError } from '../errors.js';
import type { EvidenceLog } from '../ledger/evidence-bundle.js';
import { checkpointIntervalMs } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { logTileReader, readLatestCheckpoint, type StoredCheckpoint } from '../store/log-store.js';
import { checkpointKeyHistory } from './key-history.js';
import { firmOrigin } from './log-checkpoint.js';
import { checkpointCovering, NotYetCheckpointedError } from './log-proofs.js';
import { cosignedNote } from './log-served-checkpoint.js';

/**
 * The verifiable-log part of an evidence bundle (issue 31, "Proofs in the evidence"): ONE checkpoint for the whole
 * bundle, the latest, once it covers the bundle's last record (waiting for it as GET /records/{id}/proof does,
 * bounded by three CHECKPOINT_INTERVAL_MS; no wait when checkpoints are off); records still beyond it are marked uncovered rather
 * than failing the export (a bundle is always made). Each record's inclusion proof is read from the hash tiles
 * (O(log n) tiles each), and, asked with `consistencyFrom`, the consistency proof from that size.
 * `wait: false` (the public certificate check, which answers at once) takes the latest checkpoint as it is.
 * The origin is the one the checkpoint names (its signed text), so it needs no PUBLIC_BASE_URL.
 */
export async function evidenceLog(
  deps: Deps,
  firmId: string,
  sequenceNumbers: readonly number[],
  options: { consistencyFrom?: number | undefined; wait?: boolean } = {},
): Promise<EvidenceLog | null> {
  const { consistencyFrom, wait = true } = options;
  const last = sequenceNumbers.at(-1);
  const checkpoint = wait
    ? await checkpointFor(deps, firmId, last)
    : await readLatestCheckpoint(deps, firmId);
  if (!checkpoint) {
    if (consistencyFrom !== undefined) throw tooLarge(consistencyFrom, 0);
    return null;
  }
  if (consistencyFrom !== undefined && consistencyFrom > checkpoint.size)
    throw tooLarge(consistencyFrom, checkpoint.size);
  // Every proof of the bundle is against one tree: each tile is read once (consecutive records share them).
  const reader = cachedTileReader(logTileReader(deps, firmId));
  const covered = sequenceNumbers.filter((s) => s <= checkpoint.size);
  // The checkpoint keys are read once the checkpoint is chosen, so they include the key that signed it even when a
  // new checkpoint key was registered during the wait.
  const [note, proofs, consistency, checkpointKeys] = await Promise.all([
    cosignedNote(deps, firmId, checkpoint),
    Promise.all(
      covered.map(async (sequenceNumber) => ({
        sequenceNumber,
        hashes: (await inclusionProof(reader, sequenceNumber - 1, checkpoint.size)).map(encodeBase64),
      })),
    ),
    consistencyFrom === undefined
      ? null
      : consistencyProof(reader, consistencyFrom, checkpoint.size).then((hashes) => ({
          fromSize: consistencyFrom,
          hashes: hashes.map(encodeBase64),
        })),
    checkpointKeyHistory(deps),
  ]);
  return {
    origin: noteOrigin(checkpoint.note) ?? firmOrigin(firmId),
    checkpoint: note,
    signedAt: checkpoint.signedAt,
    checkpointKeys,
    proofs,
    uncoveredFromSequence: sequenceNumbers.find((s) => s > checkpoint.size) ?? null,
    consistency,
  };
}

/** The latest checkpoint, after waiting (bounded) for one that covers `last`; undefined when the log has none. */
async function checkpointFor(
  deps: Deps,
  firmId: string,
  last: number | undefined,
): Promise<StoredCheckpoint | undefined> {
  // No record, or checkpoints off (CHECKPOINT_INTERVAL_MS=0): no wait would bring a covering checkpoint.
  if (last === undefined || checkpointIntervalMs() === 0) return readLatestCheckpoint(deps, firmId);
  try {
    return await checkpointCovering(deps, firmId, last);
  } catch (error) {
    if (!(error instanceof NotYetCheckpointedError)) throw error;
    return readLatestCheckpoint(deps, firmId);
  }
}

/** The origin a stored checkpoint names; undefined when its note does not parse (the verifiers then say so). */
function noteOrigin(note: string): string | undefined {
  try {
    return parseCheckpoint(parseNote(note).text).origin;
  } catch {
    return undefined;
  }
}

function tooLarge(from: number, size: number): ValidationError {
  const message = `consistencyFrom must be at most ${size}, the tree size of the bundle's checkpoint`;
  return new ValidationError(`Invalid consistencyFrom ${from}: ${message}`, [
    { path: 'query.consistencyFrom', message },
  ]);
}
