import { ImmutableObjectError } from '../ports/object-store.js';
import type { LedgerRecord } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import { immutableRecordKey } from '../store/immutable-layout.js';
import { deleteOutbox } from '../store/ledger-outbox-store.js';
import { dispatchRecord } from './dispatch.js';

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
    await dispatchRecord(deps, { firmId, sequenceNumber, recordId: record.id, eventType: record.eventType });
  } catch (error) {
    logger.warn('Dispatching a ledger record failed; the outbox sweep will retry', {
      firmId,
      sequenceNumber,
      error: error as Error,
    });
    return false;
  }
  await deleteOutbox(deps, firmId, sequenceNumber);
  return true;
}
