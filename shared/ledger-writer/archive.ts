import { ImmutableObjectError } from '../ports/object-store.js';
import type { LedgerRecord } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import { immutableRecordKey } from '../store/immutable-layout.js';
import { clearOutboxes, deleteOutbox } from '../store/ledger-outbox-store.js';
import { dispatchRecord } from './dispatch.js';
import type { RecordSubscriber } from '../workers/record-subscribers.js';

/**
 * Copies a committed record's canonical bytes to the immutable store, dispatches it to its subscribers, then
 * clears its outbox entry. Idempotent: an identical existing copy counts as done. A failure leaves the outbox
 * entry for the sweep (functions/workers/ledger-outbox-sweep), which calls this again.
 */
export async function archiveRecord(
  deps: Deps,
  record: Pick<LedgerRecord, 'firmId' | 'sequenceNumber' | 'id' | 'eventType'>,
  body: string,
): Promise<boolean> {
  if (!(await copyAndDispatch(deps, record, body))) return false;
  await deleteOutbox(deps, record.firmId, record.sequenceNumber);
  return true;
}

/**
 * archiveRecord for the records of one committed batch of a firm (the sequencer's holder calls it): the copies
 * and dispatches run in parallel (dispatch to `subscribers`, the batch's as subscribersOfFirm read them while it
 * was sealed; a failed read fails the dispatches, which leaves the entries to the sweep), `copied` is called once
 * they are done (the holder answers its callers then), and the outbox entries of those that succeeded are cleared
 * together, one transaction of deletes instead of one call per record. Never throws: what is not done stays in
 * the outbox for the sweep.
 */
export async function archiveBatch(
  deps: Deps,
  committed: readonly { record: LedgerRecord; body: string }[],
  subscribers: Promise<readonly RecordSubscriber[]>,
  copied: () => void = () => undefined,
): Promise<void> {
  if (committed.length === 0) return copied();
  const { firmId } = committed[0]!.record;
  const done = await Promise.all(committed.map((c) => copyAndDispatch(deps, c.record, c.body, subscribers)));
  copied();
  const archived = committed.filter((_, i) => done[i]).map((c) => c.record.sequenceNumber);
  if (archived.length === 0) return;
  try {
    await clearOutboxes(deps, firmId, archived);
  } catch (error) {
    logger.warn('Clearing the outbox entries of a batch failed; the outbox sweep will retry', {
      firmId,
      error: error as Error,
    });
  }
}

/** The immutable copy, then the subscribers: true when both are done (the outbox entry may be cleared). */
async function copyAndDispatch(
  deps: Deps,
  record: Pick<LedgerRecord, 'firmId' | 'sequenceNumber' | 'id' | 'eventType'>,
  body: string,
  subscribers?: Promise<readonly RecordSubscriber[]>,
): Promise<boolean> {
  const { firmId, sequenceNumber } = record;
  try {
    await deps.objects.put(
      'immutable',
      immutableRecordKey(firmId, sequenceNumber, record.id),
      new TextEncoder().encode(body),
      'application/json',
    );
  } catch (error) {
    const level = error instanceof ImmutableObjectError ? 'error' : 'warn';
    logger[level]('Immutable copy of a ledger record failed; the outbox sweep will retry', {
      firmId,
      sequenceNumber,
      error: error as Error,
    });
    return false;
  }
  try {
    await dispatchRecord(
      deps,
      { firmId, sequenceNumber, recordId: record.id, eventType: record.eventType },
      await subscribers,
    );
  } catch (error) {
    logger.warn('Dispatching a ledger record failed; the outbox sweep will retry', {
      firmId,
      sequenceNumber,
      error: error as Error,
    });
    return false;
  }
  return true;
}
