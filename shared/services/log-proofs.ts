import { formatHashLines } from '../domain/tlog/consistency-format.js';
import { formatTlogProof } from '../domain/tlog/proof-format.js';
import { consistencyProof, inclusionProof } from '../domain/tlog/tree.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { checkpointIntervalMs } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { getRecordById } from '../store/ledger-store.js';
import { logTileReader, readLatestCheckpoint, type StoredCheckpoint } from '../store/log-store.js';
import { checkpointAt, cosignedNote, latestCheckpoint } from './log-served-checkpoint.js';

/*
 * Proofs of the firm's verifiable log (issue 31), read from its hash tiles: O(log n) tiles per proof.
 * - A record's inclusion proof as a C2SP tlog-proof: index (sequence number − 1), the RFC 6962 inclusion hashes,
 *   then the cosigned checkpoint of that tree size, so the proof verifies offline against the log's keys.
 * - The RFC 6962 consistency proof between two tree sizes, one base64 hash a line.
 */

/**
 * How long a proof request waits for a checkpoint covering its record, in CHECKPOINT_INTERVAL_MS: a record gets a
 * checkpoint within one interval of its commit, three leave room for a lost race, a retry or a stretched interval
 * (the account's checkpoint Sign budget). Capped well below API Gateway's 30 s.
 */
const WAIT_INTERVALS = 3;
const MAX_WAIT_MS = 20_000;

/**
 * The record is committed but no checkpoint covers it yet, after waiting: 409 CONFLICT with Retry-After (the
 * state will change by itself; nothing is wrong with the request, and it is not the service failing either).
 */
export class NotYetCheckpointedError extends ConflictError {
  constructor(
    message: string,
    override readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * The tlog-proof of record `recordId` in the tree of `treeSize` (which must be the size of one of the firm's
 * checkpoints, and cover the record), or by default in the latest checkpoint's tree, waiting for one that covers
 * the record (up to three CHECKPOINT_INTERVAL_MS) when the record is newer than the latest checkpoint.
 */
export async function recordProof(
  deps: Deps,
  firmId: string,
  recordId: string,
  treeSize?: number,
): Promise<string> {
  // The record and (by default) the latest checkpoint are read together: usually it covers the record already.
  const [record, latest] = await Promise.all([
    getRecordById(deps, firmId, recordId),
    treeSize === undefined ? readLatestCheckpoint(deps, firmId).then((read) => read ?? null) : undefined,
  ]);
  if (!record) throw new NotFoundError('Ledger record not found');
  const index = record.sequenceNumber - 1;
  let checkpoint: StoredCheckpoint;
  if (treeSize !== undefined) {
    if (treeSize <= index)
      throw new ValidationError(
        `Record ${recordId} is leaf ${index}: a tree of size ${treeSize} does not hold it`,
        [
          {
            path: 'query.treeSize',
            message: `Must be at least ${record.sequenceNumber} (the record's sequence number)`,
          },
        ],
      );
    const found = await checkpointAt(deps, firmId, treeSize);
    if (!found)
      throw new NotFoundError(
        `No checkpoint of tree size ${treeSize}: ask for the size of a checkpoint the log signed, or leave treeSize out for the latest`,
      );
    checkpoint = found;
  } else {
    checkpoint = await checkpointCovering(deps, firmId, record.sequenceNumber, latest);
  }
  // The hashes (O(log n) tiles) and the checkpoint's cosignatures are independent reads.
  const [proof, note] = await Promise.all([
    inclusionProof(logTileReader(deps, firmId), index, checkpoint.size),
    cosignedNote(deps, firmId, checkpoint),
  ]);
  return formatTlogProof({ index, proof, checkpoint: note });
}

/**
 * The latest checkpoint once its size is at least `size`, polling for a bounded time; else 409 with Retry-After
 * (without it when checkpoints are off, CHECKPOINT_INTERVAL_MS = 0: no wait would help). `known`: the latest
 * checkpoint as the caller just read it (null: it read none), which stands for the first read.
 */
export async function checkpointCovering(
  deps: Deps,
  firmId: string,
  size: number,
  known?: StoredCheckpoint | null,
): Promise<StoredCheckpoint> {
  const interval = checkpointIntervalMs();
  const deadline = Date.now() + Math.min(WAIT_INTERVALS * interval, MAX_WAIT_MS);
  const pause = Math.min(250, Math.max(20, Math.floor(interval / 4)));
  let latest = known === undefined ? await readLatestCheckpoint(deps, firmId) : (known ?? undefined);
  if (interval === 0) {
    if (latest && latest.size >= size) return latest;
    // Nothing will change by itself: a 409 without Retry-After.
    throw new ConflictError(
      'No checkpoint covers this record, and checkpoints are off on this deployment (CHECKPOINT_INTERVAL_MS=0)',
    );
  }
  for (;;) {
    if (latest && latest.size >= size) return latest;
    if (Date.now() + pause > deadline)
      throw new NotYetCheckpointedError(
        `No checkpoint covers this record yet (latest tree size ${latest?.size ?? 0}, the record is leaf ${size - 1}); retry shortly`,
        Math.max(1, Math.ceil(interval / 1000)),
      );
    await new Promise((resolve) => setTimeout(resolve, pause));
    latest = await readLatestCheckpoint(deps, firmId);
  }
}

/**
 * The RFC 6962 consistency proof of the tree of `from` leaves with the tree of `to` leaves (default: the latest
 * checkpoint's size), one base64 hash a line. 1 ≤ from ≤ to ≤ latest checkpoint size, else 400 (from = to: an
 * empty proof; from = 0 is refused: every tree extends the empty tree, which RFC 6962 gives no proof for).
 */
export async function consistency(deps: Deps, firmId: string, from: number, to?: number): Promise<string> {
  const { size: latest } = await latestCheckpoint(deps, firmId);
  const newSize = to ?? latest;
  const refuse = (path: string, message: string) =>
    new ValidationError(`Invalid tree sizes: ${message}`, [{ path, message }]);
  if (from < 1)
    throw refuse('query.from', 'from must be at least 1: RFC 6962 has no proof from the empty tree');
  if (newSize > latest)
    throw refuse('query.to', `to must be at most ${latest}, the latest checkpoint's tree size`);
  if (from > newSize) throw refuse('query.from', `from must not exceed to (${newSize})`);
  return formatHashLines(await consistencyProof(logTileReader(deps, firmId), from, newSize));
}
