/** Restoring a damaged or deleted database row of the ledger from its immutable copy. */
import { createHash } from 'node:crypto';
import { actorOf, type Principal } from '../../domain/auth/principal.js';
import { distinctText } from '../../domain/integrity/record-diff.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { appendUnlessRaced } from '../../ledger-writer/append.js';
import { canonicalJson } from '../../ledger/hashing.js';
import { isoNow } from '../../ports/clock.js';
import type { Deps } from '../../runtime/deps.js';
import { markRowRestored } from '../../store/backup-store.js';
import { restoreMarkerItem } from '../../store/integrity-store.js';
import { restoreRowItem } from '../../store/ledger-writes.js';
import { LOST_RACE } from '../../store/lost-race.js';
import { clearTamperFlag } from '../../store/tamper-store.js';
import { compareAt, copyProblems } from './immutable-copy.js';
import { resolveSequence } from './record-locator.js';

/**
 * Restores the database row for a record from its immutable copy, committed atomically with a CHAIN_REPAIRED
 * record that says what was restored. The copy is checked first (copyProblems: the firm, the position and id
 * its key names, its hashes and signature under the published key); one that fails is 409 and nothing is
 * written. A row that already matches is a no-op (no second CHAIN_REPAIRED); two concurrent restores of the
 * same damage write one repair (a marker keyed by the damaged state). A damaged row need not have a canonical
 * form (a lone surrogate): it is then different from the copy, and its digest is taken over distinctText.
 */
export async function restoreRecord(deps: Deps, principal: Principal, recordId: string) {
  const sequenceNumber = await resolveSequence(deps, principal.firmId, recordId);
  if (sequenceNumber === null) throw new NotFoundError('Ledger record not found');
  const { database, immutable, immutableKey, diffs } = await compareAt(
    deps,
    principal.firmId,
    recordId,
    sequenceNumber,
  );
  if (!immutable || !immutableKey)
    throw new NotFoundError(`No immutable copy of sequence number ${sequenceNumber} exists to restore from`);
  const untrusted = await copyProblems(deps, principal.firmId, sequenceNumber, {
    key: immutableKey,
    record: immutable,
  });
  if (untrusted.length > 0)
    throw new ConflictError(
      `The immutable copy of sequence number ${sequenceNumber} cannot be trusted: ${untrusted.join('; ')}`,
    );
  const unchanged = {
    restored: false,
    action: 'NONE' as const,
    recordId: immutable.id,
    sequenceNumber,
    repairRecordId: null,
    fieldsRestored: [],
  };
  if (database && distinctText(database) === canonicalJson(immutable)) {
    // A row the tamper watch flagged and someone repaired since (another restore, a recovery): its flag goes too.
    await clearTamperFlag(deps, principal.firmId, sequenceNumber);
    return { ...unchanged, message: 'The database row already matches the immutable copy' };
  }

  const action = database ? ('OVERWRITTEN' as const) : ('REINSERTED' as const);
  const damage = createHash('sha256')
    .update(database ? distinctText(database) : 'absent')
    .digest('hex');
  const fieldsRestored = diffs.map((d) => d.field);
  const repair = await appendUnlessRaced(
    deps,
    {
      firmId: principal.firmId,
      eventType: 'CHAIN_REPAIRED',
      actor: actorOf(principal),
      documentHash: immutable.documentHash,
      documentMetadata: {
        restoredRecordId: immutable.id,
        sequenceNumber,
        action,
        fieldsRestored,
        immutableKey,
        restoredRecordHash: immutable.recordHash,
        damagedRowDigest: damage,
      },
      reviewJobId: immutable.reviewJobId,
    },
    [
      restoreRowItem(deps, immutable),
      restoreMarkerItem(deps, principal.firmId, sequenceNumber, damage, immutable.id, isoNow(deps.clock)),
    ],
  );
  if (repair === LOST_RACE)
    return { ...unchanged, message: 'A concurrent restore already repaired this damage' };
  // The reinserted row is no longer missing for the backup status (idempotent; should this step be lost, the
  // next background reconciliation finds the row anyway). The tamper watch's flag of the row goes (idempotent;
  // should this step be lost, restoring again answers NONE and clears it).
  await Promise.all([
    database ? undefined : markRowRestored(deps, principal.firmId, sequenceNumber),
    clearTamperFlag(deps, principal.firmId, sequenceNumber),
  ]);
  return {
    restored: true,
    action,
    recordId: immutable.id,
    sequenceNumber,
    fieldsRestored,
    repairRecordId: repair.id,
    message: null,
  };
}
