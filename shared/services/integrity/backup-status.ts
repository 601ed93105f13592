/**
 * Backup status (issue 14, part 2): the database against the immutable store without reading either whole.
 * Counts come from the chain head (records committed: sequence numbers are gapless), the last background
 * reconciliation (positions it found without a row, or without a copy and without a pending outbox entry),
 * and the outbox (an entry is cleared only once its copy is written, so an absent entry is a confirmed copy;
 * the few present are checked against the store). Plus fresh spot
 * checks: the latest records and a few random ones, byte for byte. And what the tamper watch flagged (rows changed or
 * removed outside the service, within seconds of the change) and a chain head gone while the ledger has records
 * (ledger-damage.ts). O(1) reads whatever the ledger's size.
 */
import { canonicalOrNull } from '../../domain/integrity/record-diff.js';
import { isoNow } from '../../ports/clock.js';
import type { Deps } from '../../runtime/deps.js';
import { getReconciliation } from '../../store/backup-store.js';
import { pendingOutboxSequences } from '../../store/ledger-presence.js';
import { getRecordBySequence, readHead } from '../../store/ledger-store.js';
import { copyAtSequence, copyOfRecord } from './immutable-copy.js';
import { chainHeadMissing, tamperingState, type TamperingState } from './ledger-damage.js';

/** The latest records checked on every call (the head and the ones before it). */
const LATEST_CHECKS = 3;
/** Random older records checked on every call. */
const RANDOM_CHECKS = 2;
/** Pending outbox entries looked at (each one's copy is checked); more are counted as not copied. */
const PENDING_CHECKS = 50;

function spotCheckPicks(head: number): number[] {
  const picks = new Set<number>();
  for (let n = head; n > 0 && n > head - LATEST_CHECKS; n--) picks.add(n);
  const older = head - LATEST_CHECKS;
  while (older > 0 && picks.size < Math.min(LATEST_CHECKS + RANDOM_CHECKS, head))
    picks.add(1 + Math.floor(Math.random() * older));
  return [...picks].sort((a, b) => a - b);
}

export async function backupStatus(deps: Deps, firmId: string) {
  const [head, reconciliation, tampering] = await Promise.all([
    readHead(deps, firmId),
    getReconciliation(deps, firmId),
    tamperingState(deps, firmId),
  ]);
  const headMissing = await chainHeadMissing(deps, firmId, {
    headSequence: head.sequenceNumber,
    tampering,
    copies: true,
  });
  // Every pending entry, old or new: the reconciliation counted pending positions neither copied nor missing.
  const pending = await pendingOutboxSequences(deps, firmId, 0, PENDING_CHECKS + 1);
  // An entry whose copy is already written is a batch being cleared right now: its copy counts.
  const looked = await Promise.all(
    pending
      .slice(0, PENDING_CHECKS)
      .map(async (n) => (await copyAtSequence(deps, firmId, n).catch(() => null)) !== null),
  );
  const pendingCopies =
    looked.filter((copied) => !copied).length + Math.max(0, pending.length - PENDING_CHECKS);
  const missingRows = reconciliation
    ? reconciliation.missingRows.length + reconciliation.missingRowsBeyondCap
    : 0;
  const missingCopies = reconciliation
    ? reconciliation.missingCopies.length + reconciliation.missingCopiesBeyondCap
    : 0;
  const databaseCount = head.sequenceNumber - missingRows;
  const immutableCount = head.sequenceNumber - missingCopies - pendingCopies;

  // A spot check reads the row, then its own copy by key (one read whatever the store holds); only a missing
  // row makes it look for any copy claiming the position (a prefix listing). Copies under another id at a
  // position are the reconciliation's and the verification's to find.
  const spotChecks = await Promise.all(
    spotCheckPicks(head.sequenceNumber).map(async (sequenceNumber) => {
      const row = await getRecordBySequence(deps, firmId, sequenceNumber);
      const copy = await (row ? copyOfRecord(deps, row) : copyAtSequence(deps, firmId, sequenceNumber)).catch(
        () => null,
      );
      return {
        recordId: copy?.record.id ?? row?.id ?? null,
        sequenceNumber,
        match: row !== null && copy !== null && canonicalOrNull(row) === copy.bytes,
      };
    }),
  );
  const countsMatch = databaseCount === immutableCount;
  return {
    healthy:
      countsMatch &&
      databaseCount === head.sequenceNumber &&
      spotChecks.every((c) => c.match) &&
      !tampering.detected &&
      !headMissing,
    database: { count: databaseCount },
    immutableStorage: { count: immutableCount },
    countsMatch,
    latestRecord:
      head.sequenceNumber > 0 ? { sequenceNumber: head.sequenceNumber, timestamp: head.timestamp } : null,
    spotChecks,
    checkedAt: isoNow(deps.clock),
    reconciledAt: reconciliation?.reconciledAt ?? null,
    reconciliation: reconciliation && {
      reconciledAt: reconciliation.reconciledAt,
      headSequence: reconciliation.headSequence,
      missingRowCount: missingRows,
      missingCopyCount: reconciliation.missingCopies.length + reconciliation.missingCopiesBeyondCap,
      missingRows: reconciliation.missingRows.slice(0, SHOWN_MISSING),
      missingCopies: reconciliation.missingCopies.slice(0, SHOWN_MISSING),
    },
    pendingCopies,
    tampering,
    chainHeadMissing: headMissing,
    problems: problems(tampering, headMissing),
  };
}

/** The standing damage in words, for an operator reading the answer. */
function problems(tampering: TamperingState, headMissing: boolean): string[] {
  const found: string[] = [];
  if (tampering.detected)
    found.push(
      `Ledger rows changed or removed outside the service (tampering), at sequence number${tampering.sequenceNumbers.length > 1 ? 's' : ''} ${tampering.sequenceNumbers.join(', ')}${tampering.more ? ' and more' : ''}: restore each from its immutable copy (POST /v1/ledger/integrity/records/{id}/restore)`,
    );
  if (headMissing)
    found.push(
      "The ledger's chain head is missing although the ledger has records: it was damaged outside the service; rebuild it from the immutable copies (docs/operations.md)",
    );
  return found;
}

/** Missing sequence numbers listed in the answer (the counts are complete). */
const SHOWN_MISSING = 100;
