import { AUTO_ISSUED_EVENTS } from '../domain/certificates/content.js';
import type { QueueName } from '../ports/queue.js';
import type { Deps } from '../runtime/deps.js';
import { WEBHOOK_EVENT_NAMES, type LedgerEventType } from './event-types.js';

/** What a consumer of committed records receives: enough to find the record (and its row) again. */
export interface RecordMessage {
  firmId: string;
  sequenceNumber: number;
  recordId: string;
  eventType: LedgerEventType;
}

/** A queue that wants to hear about some committed records (webhook delivery, certificates, reporting). */
export interface RecordSubscriber {
  queue: QueueName;
  wants(eventType: LedgerEventType): boolean;
}

/**
 * The consumers of committed ledger records. A record is dispatched after its immutable copy is written and
 * before its outbox entry is cleared, so a crash in between re-dispatches it on the next outbox sweep:
 * delivery is at least once, and every consumer must be idempotent (keyed by firm and sequence number).
 */
export const RECORD_SUBSCRIBERS: readonly RecordSubscriber[] = [
  // Governance reports: each outcome record adds its completed job to the firm's reporting aggregates.
  { queue: 'reporting', wants: (eventType) => OUTCOME_EVENT_TYPES.includes(eventType) },
  // Webhook fan-out: every event with a webhook name (functions/workers/webhooks).
  { queue: 'webhooks', wants: (eventType) => eventType in WEBHOOK_EVENT_NAMES },
  // Certificates are issued without being asked for review outcomes and impact-assessment approvals.
  { queue: 'certificates', wants: (eventType) => AUTO_ISSUED_EVENTS.has(eventType) },
];

/** The events that complete a review job (one per job). */
export const OUTCOME_EVENT_TYPES: readonly LedgerEventType[] = [
  'DOCUMENT_APPROVED',
  'DOCUMENT_MODIFIED',
  'DOCUMENT_REJECTED',
];

/** Sends the record to every subscriber that wants it; throws when a send fails (the outbox keeps it). */
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
