/**
 * What a firm's ledger is known to have lost or had changed, in a bounded number of reads (docs/architecture.md
 * §6c): the tamper watch's standing flags (rows changed or removed outside the service, until restore clears
 * them), and a chain head that is gone while the ledger has records. The backup status reports both; the records
 * list refuses to show a damaged ledger as an empty one.
 */
import type { Deps } from '../../runtime/deps.js';
import { getReconciliation } from '../../store/backup-store.js';
import { readHead } from '../../store/ledger-store.js';
import { anyRecordRow, standingTamperFlags, type TamperFlag } from '../../store/tamper-store.js';
import { copyAtSequence } from './immutable-copy.js';

/** Flagged rows listed (the answer says whether there are more). */
export const SHOWN_FLAGS = 100;

export interface TamperingState {
  detected: boolean;
  /** The flagged sequence numbers, ascending: the first SHOWN_FLAGS. */
  sequenceNumbers: number[];
  more: boolean;
  flags: Omit<TamperFlag, 'firmId'>[];
}

export async function tamperingState(deps: Deps, firmId: string): Promise<TamperingState> {
  const { flags, more } = await standingTamperFlags(deps, firmId, SHOWN_FLAGS);
  return {
    detected: flags.length > 0,
    sequenceNumbers: flags.map((flag) => flag.sequenceNumber),
    more,
    flags: flags.map(({ firmId: _firmId, ...flag }) => flag),
  };
}

/**
 * Whether the chain head is gone while the ledger has records: the head is absent (a chain never written to has
 * none either) and a record row, a standing flag, the last reconciliation or (`copies`, for a caller allowed to
 * read the immutable store) the write-once copy of record 1 says the chain was written to. Cheap for a firm with
 * a head (one read); the rest is read only without one, and the head once more when it says records exist.
 */
export async function chainHeadMissing(
  deps: Deps,
  firmId: string,
  options: { headSequence?: number; tampering?: TamperingState; copies: boolean },
): Promise<boolean> {
  const headSequence = options.headSequence ?? (await readHead(deps, firmId)).sequenceNumber;
  if (headSequence > 0) return false;
  const [flagged, rows, reconciliation] = await Promise.all([
    options.tampering
      ? options.tampering.detected
      : standingTamperFlags(deps, firmId, 1).then(({ flags }) => flags.length > 0),
    anyRecordRow(deps, firmId),
    getReconciliation(deps, firmId),
  ]);
  const written =
    flagged ||
    rows ||
    (reconciliation?.headSequence ?? 0) > 0 ||
    (options.copies && (await copyAtSequence(deps, firmId, 1).catch(() => null)) !== null);
  // The head read first may predate the firm's first commit, which writes head and rows together: only a head
  // still absent after the evidence was read is missing (not a new firm's first records, committed meanwhile).
  return written && (await readHead(deps, firmId)).sequenceNumber === 0;
}
