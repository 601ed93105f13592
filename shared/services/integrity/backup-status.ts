/** Backup status: the database against the immutable store (counts, latest record, random spot checks). */
import { canonicalOrNull } from '../../domain/integrity/record-diff.js';
import { isoNow } from '../../ports/clock.js';
import type { Deps } from '../../runtime/deps.js';
import { immutableFirmPrefix, parseImmutableRecordKey } from '../../store/immutable-layout.js';
import { countRecordRows, getRecordBySequence, readHead } from '../../store/ledger-store.js';
import { copyAtSequence } from './immutable-copy.js';

const SPOT_CHECKS = 5;

/** Database against immutable store: counts, the latest record, and byte-for-byte spot checks of random records. */
export async function backupStatus(deps: Deps, firmId: string) {
  const [head, databaseCount] = await Promise.all([readHead(deps, firmId), countRecordRows(deps, firmId)]);
  let immutableCount = 0;
  for await (const key of deps.objects.list('immutable', immutableFirmPrefix(firmId))) {
    if (parseImmutableRecordKey(key)) immutableCount += 1;
  }
  const picks = new Set<number>();
  while (picks.size < Math.min(SPOT_CHECKS, head.sequenceNumber))
    picks.add(1 + Math.floor(Math.random() * head.sequenceNumber));
  const spotChecks = await Promise.all(
    [...picks]
      .sort((a, b) => a - b)
      .map(async (sequenceNumber) => {
        const [row, copy] = await Promise.all([
          getRecordBySequence(deps, firmId, sequenceNumber),
          copyAtSequence(deps, firmId, sequenceNumber).catch(() => null),
        ]);
        return {
          recordId: copy?.record.id ?? row?.id ?? null,
          sequenceNumber,
          match: row !== null && copy !== null && canonicalOrNull(row) === copy.bytes,
        };
      }),
  );
  const countsMatch = databaseCount === immutableCount;
  return {
    healthy: countsMatch && databaseCount === head.sequenceNumber && spotChecks.every((c) => c.match),
    database: { count: databaseCount },
    immutableStorage: { count: immutableCount },
    countsMatch,
    latestRecord:
      head.sequenceNumber > 0 ? { sequenceNumber: head.sequenceNumber, timestamp: head.timestamp } : null,
    spotChecks,
    checkedAt: isoNow(deps.clock),
  };
}
