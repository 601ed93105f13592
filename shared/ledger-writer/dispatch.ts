import type { LedgerEventType } from '../ledger/event-types.js';
import type { Deps } from '../runtime/deps.js';
import { RECORD_SUBSCRIBERS, type RecordSubscriber } from '../workers/record-subscribers.js';

/** What a consumer of committed records receives: enough to find the record (and its row) again. */
export interface RecordMessage {
  firmId: string;
  sequenceNumber: number;
  recordId: string;
  eventType: LedgerEventType;
}

/**
 * Sends the record to every subscriber that wants it (by default the queue workers that subscribe to
 * records, shared/workers/record-subscribers.ts); throws when a send fails (the outbox keeps it). A record is dispatched after
 * its immutable copy is written and before its outbox entry is cleared, so a crash in between re-dispatches it
 * on the next outbox sweep: delivery is at least once, and every consumer must be idempotent (keyed by firm
 * and sequence number).
 */
export async function dispatchRecord(
  deps: Deps,
  message: RecordMessage,
  subscribers: readonly RecordSubscriber[] = RECORD_SUBSCRIBERS,
): Promise<void> {
  await Promise.all(
    subscribers
      .filter((subscriber) => subscriber.wants(message.eventType))
      .map((subscriber) => deps.queue.send(subscriber.queue, message)),
  );
}
