import { endpointWants } from '../domain/webhooks/events.js';
import type { LedgerEventType } from '../ledger/event-types.js';
import type { Deps } from '../runtime/deps.js';
import { listWebhooks } from '../store/webhook-store.js';
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

/**
 * The subscribers of one firm's records as of now: the webhooks queue hears only of event types some active
 * endpoint of the firm subscribes to (its worker would find nobody to deliver to otherwise). Read once per
 * batch while the batch is sealed and committed (strongly consistent), instead of once per record in the worker:
 * every record of a firm without endpoints, and every event type no endpoint wants, no longer travels to the
 * webhooks queue. An endpoint registered while a batch commits may miss that batch's records (a registration and
 * an append racing by milliseconds have no order); it gets every later one.
 */
export async function subscribersOfFirm(
  deps: Deps,
  firmId: string,
  subscribers: readonly RecordSubscriber[] = RECORD_SUBSCRIBERS,
): Promise<readonly RecordSubscriber[]> {
  if (!subscribers.some((subscriber) => subscriber.queue === 'webhooks')) return subscribers;
  const endpoints = await listWebhooks(deps, firmId);
  return subscribers.map((subscriber) =>
    subscriber.queue !== 'webhooks'
      ? subscriber
      : {
          queue: subscriber.queue,
          wants: (eventType: LedgerEventType) =>
            subscriber.wants(eventType) && endpoints.some((endpoint) => endpointWants(endpoint, eventType)),
        },
  );
}
