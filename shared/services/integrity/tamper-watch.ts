/**
 * The tamper watch (issue 32; docs/architecture.md §6c): judges each change of the ledger table its stream
 * reports (only record rows' MODIFY and REMOVE, and the head's REMOVE, reach it: TAMPER_WATCH_FILTERS) and flags,
 * O(1) per change, a record row changed or removed outside the service: a flag item, a TAMPERING_DETECTED record
 * appended to the firm's chain (signed, copied, delivered as the `ledger.tampering-detected` webhook) in the same
 * transaction, and an ERROR line the LEDGER_TAMPERING_DETECTED metric and alarm count. Restore clears the flag.
 */
import {
  judgeRecordRow,
  tamperSubject,
  type ExpectedRow,
  type RowVerdict,
} from '../../domain/integrity/tamper.js';
import { ConflictError } from '../../errors.js';
import { appendUnlessRaced } from '../../ledger-writer/append.js';
import type { Actor } from '../../ledger/record.js';
import { isoNow } from '../../ports/clock.js';
import type { Deps } from '../../runtime/deps.js';
import { logger, TAMPERING_DETECTED_LOG } from '../../runtime/logger.js';
import type { TransactItem } from '../../store/conditional-write.js';
import { keys } from '../../store/keys.js';
import { readHead } from '../../store/ledger-store.js';
import { LOST_RACE } from '../../store/lost-race.js';
import { recordIndexAttributes } from '../../store/record-index.js';
import { getStoredRow, putTamperFlag, tamperFlagItem, type TamperFlag } from '../../store/tamper-store.js';
import { copyAtSequence } from './immutable-copy.js';

/** The actor of the TAMPERING_DETECTED records the watch writes. */
export const TAMPER_WATCH_ACTOR: Actor = {
  id: 'system:ledger-tamper-watch',
  name: 'Tamper watch',
  fcaRef: null,
};

/** One change of the ledger table, as its stream record names it (event name and the item's key). */
export interface LedgerChange {
  eventName: string;
  pk: string;
  sk: string;
}

export type ChangeOutcome =
  'ignored' | 'intact' | 'flagged' | 'already-flagged' | 'head-removed' | 'head-rebuilt';

/** Judges one change and flags what it finds; throws only on a dependency failure (the change is retried). */
export async function judgeLedgerChange(deps: Deps, change: LedgerChange): Promise<ChangeOutcome> {
  const subject = tamperSubject(change.eventName, change.pk, change.sk);
  if (!subject) return 'ignored';
  if (subject.kind === 'head') return headRemoved(deps, subject.firmId);
  const { firmId, sequenceNumber } = subject;
  const [row, copy] = await Promise.all([
    getStoredRow(deps, firmId, sequenceNumber),
    copyAtSequence(deps, firmId, sequenceNumber).catch((error: unknown) => {
      // Two copies claim the position and neither is the one sound copy: nothing proves the row.
      if (error instanceof ConflictError) return null;
      throw error;
    }),
  ]);
  const expected: ExpectedRow | null = copy && {
    bytes: copy.bytes,
    record: copy.record,
    storage: recordIndexAttributes(copy.record) as Record<string, string>,
  };
  const verdict = judgeRecordRow(row, expected);
  if (verdict.intact) {
    logger.info('A ledger row change leaves the row exactly its immutable copy (a restore)', {
      firmId,
      sequenceNumber,
      eventName: change.eventName,
    });
    return 'intact';
  }
  return flagRow(deps, firmId, sequenceNumber, verdict, copy?.record.id ?? row?.record.id ?? null);
}

async function flagRow(
  deps: Deps,
  firmId: string,
  sequenceNumber: number,
  verdict: Extract<RowVerdict, { intact: false }>,
  recordId: string | null,
): Promise<ChangeOutcome> {
  const detectedAt = isoNow(deps.clock);
  const flag: TamperFlag = {
    firmId,
    sequenceNumber,
    change: verdict.change,
    fieldsChanged: verdict.fieldsChanged,
    detectedAt,
    detectionRecordId: null,
  };
  // A removed row put back meanwhile (a restore or a recovery that committed since it was read) is not flagged:
  // a recovery clears the flags of the rows it wrote only once it has written them all.
  const rowStillGone = verdict.change === 'REMOVED' ? [rowStillAbsent(deps, firmId, sequenceNumber)] : [];
  // A chain without a head has nothing to append to: an append would start it again at 1, over the positions
  // the immutable copies hold. The flag then stands alone (no record, no webhook); the alarm still fires.
  const head = await readHead(deps, firmId);
  let created: boolean;
  let detectionRecordId: string | null = null;
  if (head.sequenceNumber === 0) created = await putTamperFlag(deps, flag, rowStillGone);
  else {
    const record = await appendUnlessRaced(
      deps,
      {
        firmId,
        eventType: 'TAMPERING_DETECTED',
        actor: TAMPER_WATCH_ACTOR,
        documentMetadata: {
          sequenceNumber,
          recordId,
          change: verdict.change,
          fieldsChanged: verdict.fieldsChanged,
          detectedAt,
        },
      },
      (sealed) => [tamperFlagItem(deps, { ...flag, detectionRecordId: sealed.id }), ...rowStillGone],
    );
    created = record !== LOST_RACE;
    if (record !== LOST_RACE) detectionRecordId = record.id;
  }
  if (!created) return 'already-flagged';
  // The CloudWatch metric filter behind the LEDGER_TAMPERING_DETECTED alarm matches this message.
  logger.error(TAMPERING_DETECTED_LOG, {
    firmId,
    sequenceNumber,
    recordId,
    change: verdict.change,
    fieldsChanged: verdict.fieldsChanged,
    detectionRecordId,
  });
  return 'flagged';
}

function rowStillAbsent(deps: Deps, firmId: string, sequenceNumber: number): TransactItem {
  return {
    ConditionCheck: {
      TableName: deps.tables.ledger,
      Key: keys.ledgerRecord(firmId, sequenceNumber),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * The service never removes a chain head. Logged and counted whatever the head is now: an append rebuilds a
 * removed head from the highest record row, so it may be back already. The backup status reports a missing head
 * by itself (a head absent while record rows, flags, a reconciliation or copies say the chain has records).
 */
async function headRemoved(deps: Deps, firmId: string): Promise<ChangeOutcome> {
  const head = await readHead(deps, firmId);
  logger.error(TAMPERING_DETECTED_LOG, {
    firmId,
    change: 'HEAD_REMOVED',
    headNow: head.sequenceNumber === 0 ? null : head.sequenceNumber,
  });
  return head.sequenceNumber === 0 ? 'head-removed' : 'head-rebuilt';
}
