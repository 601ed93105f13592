import type { LedgerEventType } from '../ledger/event-types.js';
import type { QueueName } from '../ports/queue.js';
import { WORKERS } from './table.js';

/** A queue that wants to hear about some committed records (webhook delivery, certificates, reporting). */
export interface RecordSubscriber {
  queue: QueueName;
  wants(eventType: LedgerEventType): boolean;
}

/**
 * The consumers of committed ledger records: the queue workers of the worker table (table.ts) that subscribe to records. Whoever
 * archives a record sends to these queues (the writer, and the grants in lib/permissions.ts).
 */
export const RECORD_SUBSCRIBERS: readonly RecordSubscriber[] = WORKERS.flatMap(({ trigger }) => {
  if (trigger.kind !== 'queue' || !trigger.subscribesTo) return [];
  const events = trigger.subscribesTo;
  return [{ queue: trigger.queue, wants: (eventType: LedgerEventType) => events.includes(eventType) }];
});
