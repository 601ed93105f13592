import { randomUUID } from 'node:crypto';
import {
  DELIVERY_HEADER,
  envelopeOf,
  EVENT_HEADER,
  retryDelaySeconds,
  SIGNATURE_HEADER,
  signatureHeader,
} from '../domain/webhooks/delivery.js';
import { endpointWants, webhookNameOf } from '../domain/webhooks/events.js';
import { signingSecrets, standardWebhookHeaders, unixSeconds } from '../domain/webhooks/standard-webhooks.js';
import { newId } from '../ids.js';
import type { RecordMessage } from '../ledger-writer/dispatch.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import { getRecordBySequence } from '../store/ledger-store.js';
import {
  cancelDelivery,
  claimDelivery,
  createDelivery,
  getDelivery,
  getDeliveryIdFor,
  getWebhook,
  listWebhooks,
  recordAttempt,
  type AttemptOutcome,
  type DeliveryAttempt,
  type WebhookDeliveryItem,
  type WebhookItem,
} from '../store/webhook-store.js';
import { webhookConfig, type WebhookConfig } from './webhook-config.js';
import { postWebhook } from './webhook-http.js';

/** One attempt of one delivery; only the message carrying the delivery's current token may run it. */
export interface AttemptMessage {
  kind: 'webhook-attempt';
  firmId: string;
  webhookId: string;
  deliveryId: string;
  token: string;
}

/** The webhooks queue carries committed records (from the ledger dispatch) and delivery attempts. */
export type WebhookQueueMessage = RecordMessage | AttemptMessage;

/** How long past its own timeout an attempt's lease lasts before another receive may take it over. */
const LEASE_MARGIN_MS = 60_000;

export async function handleWebhookMessage(
  deps: Deps,
  message: WebhookQueueMessage,
  config: WebhookConfig = webhookConfig(),
): Promise<void> {
  if ('kind' in message && message.kind === 'webhook-attempt') await attemptDelivery(deps, message, config);
  else await fanOut(deps, message as RecordMessage);
}

export function queueAttempt(deps: Deps, message: Omit<AttemptMessage, 'kind'>, delaySeconds = 0) {
  return deps.queue.send('webhooks', { kind: 'webhook-attempt', ...message } satisfies AttemptMessage, {
    delaySeconds,
  });
}

/**
 * Creates one delivery per active endpoint of the firm subscribed to the record's event and queues its first
 * attempt. Idempotent: the (endpoint, sequence number) marker makes a re-dispatched record find the
 * delivery it created before; only a delivery that never got its first attempt queued is queued again.
 */
export async function fanOut(deps: Deps, message: RecordMessage): Promise<number> {
  const event = webhookNameOf(message.eventType);
  if (event === null) return 0;
  const endpoints = (await listWebhooks(deps, message.firmId)).filter((endpoint) =>
    endpointWants(endpoint, message.eventType),
  );
  if (endpoints.length === 0) return 0;
  const record = await getRecordBySequence(deps, message.firmId, message.sequenceNumber);
  if (!record || record.id !== message.recordId)
    throw new Error(
      `Ledger record ${message.firmId}#${message.sequenceNumber} is not ${message.recordId}; not delivering it`,
    );
  // Serialised once: every attempt and every redelivery sends these very bytes under the same signature.
  const body = JSON.stringify(envelopeOf(record));
  await Promise.all(
    endpoints.map(async (endpoint) => {
      const now = isoNow(deps.clock);
      const delivery: WebhookDeliveryItem = {
        id: newId('webhookDelivery'),
        firmId: message.firmId,
        webhookId: endpoint.id,
        recordId: record.id,
        sequenceNumber: record.sequenceNumber,
        eventType: record.eventType,
        event,
        body,
        status: 'PENDING',
        token: randomUUID(),
        leaseUntil: null,
        attempts: 0,
        roundAttempts: 0,
        attemptLog: [],
        lastStatusCode: null,
        lastError: null,
        createdAt: now,
        lastAttemptAt: null,
        nextAttemptAt: now,
        deliveredAt: null,
      };
      if ((await createDelivery(deps, delivery)) === 'created') {
        await queueAttempt(deps, {
          firmId: delivery.firmId,
          webhookId: endpoint.id,
          deliveryId: delivery.id,
          token: delivery.token!,
        });
        return;
      }
      const existingId = await getDeliveryIdFor(deps, message.firmId, endpoint.id, record.sequenceNumber);
      const existing = existingId ? await getDelivery(deps, message.firmId, endpoint.id, existingId) : null;
      // The earlier fan-out may have died between creating the delivery and queuing its first attempt.
      if (existing && existing.status === 'PENDING' && existing.attempts === 0 && existing.token !== null)
        await queueAttempt(deps, {
          firmId: existing.firmId,
          webhookId: existing.webhookId,
          deliveryId: existing.id,
          token: existing.token,
        });
    }),
  );
  return endpoints.length;
}

/**
 * Runs one attempt: re-reads the endpoint (a deactivated one gets nothing, even for an attempt queued
 * before the deactivation), takes the attempt's lease, POSTs the signed body, and records the result. On a
 * non-2xx status or no status at all, the next attempt is queued with the backoff delay (before the result
 * is recorded, so a crash in between can only repeat an attempt, never lose one) until the round's attempts
 * are exhausted; the delivery is then FAILED, its dead-letter state, until someone redelivers it.
 */
export async function attemptDelivery(
  deps: Deps,
  message: AttemptMessage,
  config: WebhookConfig,
): Promise<void> {
  const ref = { firmId: message.firmId, webhookId: message.webhookId, id: message.deliveryId };
  const endpoint = await getWebhook(deps, message.firmId, message.webhookId);
  if (!endpoint || !endpoint.isActive) {
    await cancelDelivery(deps, ref, message.token, isoNow(deps.clock));
    return;
  }
  const now = deps.clock.now();
  const claimed = await claimDelivery(
    deps,
    ref,
    message.token,
    now.toISOString(),
    new Date(now.getTime() + config.timeoutMs + LEASE_MARGIN_MS).toISOString(),
  );
  if (!claimed) {
    await explainUnclaimed(deps, message, now.toISOString());
    return;
  }
  const attempt = await post(endpoint, claimed, config, now);
  const outcome = await nextStep(deps, claimed, attempt, config);
  const recorded = await recordAttempt(deps, ref, message.token, attempt, outcome);
  if (!recorded) {
    logger.warn('A webhook attempt outlived its lease; its result was not recorded', {
      deliveryId: claimed.id,
      attempt: attempt.attempt,
    });
    // Failing the message makes SQS hand it back: it re-claims the expired lease and attempts again.
    throw new Error(`Lease of delivery ${claimed.id} expired during attempt ${attempt.attempt}`);
  }
  if (outcome.status === 'FAILED')
    logger.warn('Webhook delivery failed after its last attempt; dead-lettered (redeliver to retry)', {
      firmId: claimed.firmId,
      webhookId: claimed.webhookId,
      deliveryId: claimed.id,
      attempts: recorded.attempts,
      lastError: attempt.error,
    });
}

/**
 * A message that could not claim its delivery is a duplicate or stale (done, cancelled, or superseded by a
 * newer attempt), except when another attempt holds a live lease under a different token: that one may be
 * about to record this message's token, so the receive fails and the queue tries again later.
 */
async function explainUnclaimed(deps: Deps, message: AttemptMessage, now: string): Promise<void> {
  const current = await getDelivery(deps, message.firmId, message.webhookId, message.deliveryId);
  if (
    current?.status === 'DELIVERING' &&
    current.token !== message.token &&
    current.leaseUntil !== null &&
    current.leaseUntil >= now
  )
    throw new Error(`Delivery ${message.deliveryId} is mid-attempt; retrying this message later`);
}

async function post(
  endpoint: WebhookItem,
  delivery: WebhookDeliveryItem,
  config: WebhookConfig,
  now: Date,
): Promise<DeliveryAttempt> {
  const startedAt = new Date();
  // The newest secret first; during a rotation's overlap window the previous one signs too.
  const secrets = signingSecrets(endpoint, now);
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    ({ statusCode } = await postWebhook(
      endpoint.url,
      delivery.body,
      {
        'Content-Type': 'application/json',
        'User-Agent': 'GovernanceLedgerService-Webhooks/1.0',
        [EVENT_HEADER]: delivery.event,
        [SIGNATURE_HEADER]: signatureHeader(endpoint.secret, delivery.body),
        [DELIVERY_HEADER]: delivery.id,
        // webhook-id is the delivery's id: the same on every retry and redelivery of this event to this endpoint.
        ...standardWebhookHeaders(secrets, delivery.id, unixSeconds(now), delivery.body),
      },
      { timeoutMs: config.timeoutMs, policy: config.policy },
    ));
    if (statusCode < 200 || statusCode > 299) error = `HTTP ${statusCode}`;
  } catch (failure) {
    error = failure instanceof Error ? failure.message : String(failure);
  }
  return {
    attempt: delivery.attempts,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    statusCode,
    error,
  };
}

async function nextStep(
  deps: Deps,
  delivery: WebhookDeliveryItem,
  attempt: DeliveryAttempt,
  config: WebhookConfig,
): Promise<AttemptOutcome> {
  if (attempt.error === null) return { status: 'DELIVERED' };
  if (delivery.roundAttempts >= config.schedule.maxAttempts) return { status: 'FAILED' };
  const delaySeconds = retryDelaySeconds(delivery.roundAttempts, config.schedule);
  const nextToken = randomUUID();
  await queueAttempt(
    deps,
    { firmId: delivery.firmId, webhookId: delivery.webhookId, deliveryId: delivery.id, token: nextToken },
    delaySeconds,
  );
  return {
    status: 'PENDING',
    nextToken,
    nextAttemptAt: new Date(deps.clock.now().getTime() + delaySeconds * 1000).toISOString(),
  };
}
