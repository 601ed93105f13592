/**
 * The background backup reconciliation (issue 14, part 2): for one firm, which positions 1..head have no
 * database row and which no immutable copy, found by walking the row keys and listing the firm's copies once.
 * O(records), so it runs in the background (scheduled worker backup-reconcile), never per request; the backup
 * status answers from its findings plus what was appended since (docs/architecture.md, "Backup status").
 */
import { isoNow } from '../../ports/clock.js';
import type { Deps } from '../../runtime/deps.js';
import { logger } from '../../runtime/logger.js';
import {
  MISSING_CAP,
  registeredFirms,
  saveReconciliation,
  type Reconciliation,
} from '../../store/backup-store.js';
import { immutableFirmPrefix, parseImmutableRecordKey } from '../../store/immutable-layout.js';
import { outboxSequencePages, rowSequences } from '../../store/ledger-presence.js';
import { readHead } from '../../store/ledger-store.js';

/** Collects missing sequence numbers: the first MISSING_CAP by number, the rest counted. */
function missingList() {
  const numbers: number[] = [];
  let beyondCap = 0;
  return {
    add(sequenceNumber: number) {
      if (numbers.length < MISSING_CAP) numbers.push(sequenceNumber);
      else beyondCap += 1;
    },
    numbers,
    beyondCap: () => beyondCap,
  };
}

/** Reconciles one firm up to its head as read at the start, and stores what it found. */
export async function reconcileBackup(deps: Deps, firmId: string): Promise<Reconciliation> {
  const reconciledAt = isoNow(deps.clock);
  const head = (await readHead(deps, firmId)).sequenceNumber;

  const rows = missingList();
  let expected = 1;
  for await (const page of rowSequences(deps, firmId, head)) {
    for (const sequenceNumber of page) {
      while (expected < sequenceNumber) rows.add(expected++);
      expected = sequenceNumber + 1;
    }
  }
  while (expected <= head) rows.add(expected++);

  // Positions whose copy is still pending (outbox entry present) are not missing: the backup status checks
  // them live. Read before listing: an entry absent here was cleared after its copy was written, so the
  // listing that follows finds that copy (the immutable store never deletes).
  const copied = new Uint8Array(head + 1);
  for await (const page of outboxSequencePages(deps, firmId))
    for (const sequenceNumber of page) if (sequenceNumber <= head) copied[sequenceNumber] = 1;
  for await (const key of deps.objects.list('immutable', immutableFirmPrefix(firmId))) {
    const parsed = parseImmutableRecordKey(key);
    if (parsed && parsed.firmId === firmId && parsed.sequenceNumber <= head)
      copied[parsed.sequenceNumber] = 1;
  }
  const copies = missingList();
  for (let sequenceNumber = 1; sequenceNumber <= head; sequenceNumber++)
    if (!copied[sequenceNumber]) copies.add(sequenceNumber);

  const found: Reconciliation = {
    reconciledAt,
    headSequence: head,
    missingRows: rows.numbers,
    missingRowsBeyondCap: rows.beyondCap(),
    missingCopies: copies.numbers,
    missingCopiesBeyondCap: copies.beyondCap(),
  };
  await saveReconciliation(deps, firmId, found);
  return found;
}

export interface ReconcileRunResult {
  reconciled: string[];
  failed: string[];
  /** Registered firms not yet due, or left for the next run because the time budget was spent. */
  skipped: number;
}

/**
 * The scheduled run: every registered firm whose last reconciliation is older than `maxAgeMs` (or never ran),
 * oldest first, one after the other until `budgetMs` is spent; the rest wait for the next run. A firm whose
 * reconciliation fails is logged and retried next run.
 */
export async function reconcileDueFirms(
  deps: Deps,
  options: { maxAgeMs: number; budgetMs: number },
): Promise<ReconcileRunResult> {
  const started = Date.now();
  const now = deps.clock.now().getTime();
  const result: ReconcileRunResult = { reconciled: [], failed: [], skipped: 0 };
  for (const { firmId, reconciledAt } of await registeredFirms(deps)) {
    const due = reconciledAt === null || Date.parse(reconciledAt) <= now - options.maxAgeMs;
    if (!due || Date.now() - started > options.budgetMs) {
      result.skipped += 1;
      continue;
    }
    try {
      await reconcileBackup(deps, firmId);
      result.reconciled.push(firmId);
    } catch (error) {
      logger.error('Backup reconciliation of a firm failed; retried next run', {
        firmId,
        error: error as Error,
      });
      result.failed.push(firmId);
    }
  }
  return result;
}
