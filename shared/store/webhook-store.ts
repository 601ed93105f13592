import type { DeliveryStatus } from '../domain/webhooks/delivery.js';
import type { WebhookEventName } from '../domain/webhooks/events.js';
import type { LedgerEventType } from '../ledger/event-types.js';
import type { Deps } from '../runtime/deps.js';
import { conditionFailedAt, updateConditionally, writeConditionally, writeNew } from './conditional-write.js';
import { queryAll, send, withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import type { ListQuery } from './list-page.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

export interface WebhookItem {
  id: string;
  firmId: string;
  url: string;
  /** HMAC key of the deliveries. Stored as is (it must sign), encrypted at rest like the whole table. */
  secret: string;
  /**
   * The secret a rotation replaced, which still signs deliveries (webhook-signature) until
   * previousSecretExpiresAt; absent on endpoints never rotated, null once a rotation had no overlap.
   */
  previousSecret?: string | null;
  previousSecretExpiresAt?: string | null;
  events: WebhookEventName[];
  isActive: boolean;
  createdAt: string;
  deactivatedAt: string | null;
}

export interface DeliveryAttempt {
  attempt: number;
  startedAt: string;
  durationMs: number;
  /** The receiver's HTTP status, or null when none came back (refused address, connection error, timeout). */
  statusCode: number | null;
  error: string | null;
}

export interface WebhookDeliveryItem {
  id: string;
  firmId: string;
  webhookId: string;
  recordId: string;
  sequenceNumber: number;
  eventType: LedgerEventType;
  event: WebhookEventName;
  /** The exact request body, fixed at fan-out: every attempt and redelivery sends the same bytes. */
  body: string;
  status: DeliveryStatus;
  /** Only the queue message carrying this token may start the next attempt; null when none is queued. */
  token: string | null;
  leaseUntil: string | null;
  /** Attempts over the delivery's life; roundAttempts counts those since the last (re)delivery request. */
  attempts: number;
  roundAttempts: number;
  attemptLog: DeliveryAttempt[];
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

export async function putWebhook(deps: Deps, webhook: WebhookItem): Promise<void> {
  await writeNew(
    deps,
    [
      {
        Put: {
          TableName: deps.tables.main,
          Item: { ...keys.webhook(webhook.firmId, webhook.id), ...webhook },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
    `webhook ${webhook.id}`,
  );
}

/** Strongly consistent: a delivery attempt must see a deactivation made a moment ago. */
export async function getWebhook(deps: Deps, firmId: string, webhookId: string): Promise<WebhookItem | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.webhook(firmId, webhookId),
    ConsistentRead: true,
  });
  return Item ? (withoutKeys(Item) as unknown as WebhookItem) : null;
}

export async function listWebhooks(deps: Deps, firmId: string): Promise<WebhookItem[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', SK_PREFIX.webhook),
    },
    ConsistentRead: true,
  });
  return items.map((item) => withoutKeys(item) as unknown as WebhookItem);
}

/** Sets isActive false (idempotent; the first deactivatedAt is kept). False when the webhook is unknown. */
export async function deactivateWebhook(
  deps: Deps,
  firmId: string,
  webhookId: string,
  at: string,
): Promise<boolean> {
  const outcome = await writeConditionally(deps, [
    {
      Update: {
        TableName: deps.tables.main,
        Key: keys.webhook(firmId, webhookId),
        UpdateExpression: 'SET isActive = :false, deactivatedAt = :at',
        ConditionExpression: 'attribute_exists(pk) AND isActive = :true',
        ExpressionAttributeValues: { ':false': false, ':true': true, ':at': at },
      },
    },
  ]);
  if (outcome.status === 'conflict') throw new Error(`Deactivating webhook ${webhookId} met a transaction`);
  // Not committed: unknown, or already deactivated (the first deactivatedAt stands).
  return outcome.status === 'committed' || (await getWebhook(deps, firmId, webhookId)) !== null;
}

/**
 * Replaces an active endpoint's secret, keeping the one replaced as `previous` (or none). Conditional on the
 * secret read before (`expectedSecret`): 'lost-race' when another rotation came first, null when the endpoint
 * is unknown or deactivated, else the endpoint as written.
 */
export async function rotateWebhookSecret(
  deps: Deps,
  ref: { firmId: string; webhookId: string; expectedSecret: string },
  next: { secret: string; previousSecret: string | null; previousSecretExpiresAt: string | null },
): Promise<WebhookItem | 'lost-race' | null> {
  const outcome = await updateConditionally(deps, {
    TableName: deps.tables.main,
    Key: keys.webhook(ref.firmId, ref.webhookId),
    UpdateExpression: 'SET secret = :secret, previousSecret = :previous, previousSecretExpiresAt = :expires',
    ConditionExpression: 'attribute_exists(pk) AND isActive = :true AND secret = :expected',
    ExpressionAttributeValues: {
      ':secret': next.secret,
      ':previous': next.previousSecret,
      ':expires': next.previousSecretExpiresAt,
      ':true': true,
      ':expected': ref.expectedSecret,
    },
  });
  if (outcome.status === 'conflict') throw new Error(`Rotating webhook ${ref.webhookId} met a transaction`);
  if (outcome.status === 'committed') return withoutKeys(outcome.item) as unknown as WebhookItem;
  const now = await getWebhook(deps, ref.firmId, ref.webhookId);
  return now && now.isActive ? 'lost-race' : null;
}

/**
 * Creates the delivery of one record to one endpoint, with the (endpoint, sequence number) marker that makes
 * it unique: 'exists' when an earlier fan-out of the same record already created it.
 */
export async function createDelivery(
  deps: Deps,
  delivery: WebhookDeliveryItem,
): Promise<'created' | 'exists'> {
  const outcome = await writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.main,
        Item: {
          ...keys.webhookDeliveryMarker(delivery.firmId, delivery.webhookId, delivery.sequenceNumber),
          deliveryId: delivery.id,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: deps.tables.main,
        Item: {
          ...keys.webhookDelivery(delivery.firmId, delivery.webhookId, delivery.id),
          ...delivery,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);
  if (outcome.status === 'committed') return 'created';
  if (conditionFailedAt(outcome, 0)) return 'exists';
  // A concurrent fan-out of the same record (the message is retried), or a delivery id taken twice.
  throw new Error(`Creating delivery ${delivery.id} failed: ${JSON.stringify(outcome)}`);
}

export async function getDeliveryIdFor(
  deps: Deps,
  firmId: string,
  webhookId: string,
  sequenceNumber: number,
): Promise<string | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.webhookDeliveryMarker(firmId, webhookId, sequenceNumber),
    ConsistentRead: true,
  });
  return Item ? (Item.deliveryId as string) : null;
}

export async function getDelivery(
  deps: Deps,
  firmId: string,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDeliveryItem | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.webhookDelivery(firmId, webhookId, deliveryId),
    ConsistentRead: true,
  });
  return Item ? (withoutKeys(Item) as unknown as WebhookDeliveryItem) : null;
}

/**
 * An endpoint's deliveries newest first (delivery ids are ULIDs), all or of one status, as a list query
 * (issue 14): the table's own key order; a status is a FilterExpression, so its pages are read with a budget.
 */
export function deliveryListQuery(
  deps: Deps,
  firmId: string,
  webhookId: string,
  status?: DeliveryStatus,
): ListQuery {
  const prefix = SK_PREFIX.webhookDelivery(webhookId);
  return {
    input: {
      TableName: deps.tables.main,
      KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
      ExpressionAttributeValues: {
        ':pk': keys.firmPk(firmId),
        ...skPrefixValues(':prefix', prefix),
        ...(status ? { ':status': status } : {}),
      },
      ...(status
        ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } }
        : {}),
      ScanIndexForward: false,
    },
    keyBounds: { pk: { equals: keys.firmPk(firmId) }, sk: { prefix } },
  };
}

/** A delivery item read from a list. */
export const deliveryOf = (item: Record<string, unknown>) =>
  withoutKeys(item) as unknown as WebhookDeliveryItem;

export type DeliveryKey = Pick<WebhookDeliveryItem, 'firmId' | 'webhookId' | 'id'>;

const keyOf = (d: DeliveryKey) => keys.webhookDelivery(d.firmId, d.webhookId, d.id);

/** Runs a conditional update; null when its condition fails (the item as it is now is then re-read). */
async function conditionalUpdate(
  deps: Deps,
  delivery: DeliveryKey,
  update: { expression: string; condition: string; values: Record<string, unknown> },
): Promise<WebhookDeliveryItem | null> {
  const outcome = await updateConditionally(deps, {
    TableName: deps.tables.main,
    Key: keyOf(delivery),
    UpdateExpression: update.expression,
    ConditionExpression: `attribute_exists(pk) AND ${update.condition}`,
    ExpressionAttributeNames: { '#status': 'status', '#token': 'token' },
    ExpressionAttributeValues: update.values,
  });
  // Only their creation is transactional, so a `conflict` cannot arise here; were it to, fail loudly.
  if (outcome.status === 'conflict') throw new Error(`Update of delivery ${delivery.id} met a transaction`);
  return outcome.status === 'committed'
    ? (withoutKeys(outcome.item) as unknown as WebhookDeliveryItem)
    : null;
}

/** The message's token may start an attempt: a PENDING delivery, or one whose last attempt's lease ran out. */
const CLAIMABLE = '#token = :token AND (#status = :pending OR (#status = :delivering AND leaseUntil < :now))';

/** The values CLAIMABLE reads. */
function claimableValues(token: string, now: string): Record<string, unknown> {
  return { ':token': token, ':pending': 'PENDING', ':delivering': 'DELIVERING', ':now': now };
}

/** Takes the lease for one attempt (counting it); null when the token is stale or another attempt runs. */
export function claimDelivery(
  deps: Deps,
  delivery: DeliveryKey,
  token: string,
  now: string,
  leaseUntil: string,
): Promise<WebhookDeliveryItem | null> {
  return conditionalUpdate(deps, delivery, {
    expression:
      'SET #status = :delivering, leaseUntil = :lease, attempts = attempts + :one, roundAttempts = roundAttempts + :one, lastAttemptAt = :now, nextAttemptAt = :null',
    condition: CLAIMABLE,
    values: {
      ...claimableValues(token, now),
      ':lease': leaseUntil,
      ':one': 1,
      ':null': null,
    },
  });
}

/** The endpoint was deactivated: the queued attempt is dropped and nothing more is queued. */
export function cancelDelivery(
  deps: Deps,
  delivery: DeliveryKey,
  token: string,
  now: string,
): Promise<WebhookDeliveryItem | null> {
  return conditionalUpdate(deps, delivery, {
    expression:
      'SET #status = :cancelled, #token = :null, leaseUntil = :null, nextAttemptAt = :null, lastError = :why',
    condition: CLAIMABLE,
    values: {
      ...claimableValues(token, now),
      ':cancelled': 'CANCELLED',
      ':null': null,
      ':why': 'Endpoint deactivated; no further attempts',
    },
  });
}

export type AttemptOutcome =
  | { status: 'DELIVERED' }
  | { status: 'PENDING'; nextToken: string; nextAttemptAt: string }
  | { status: 'FAILED' };

/** Records an attempt this worker holds the lease for, and what comes next. */
export function recordAttempt(
  deps: Deps,
  delivery: DeliveryKey,
  token: string,
  attempt: DeliveryAttempt,
  outcome: AttemptOutcome,
): Promise<WebhookDeliveryItem | null> {
  return conditionalUpdate(deps, delivery, {
    expression:
      'SET #status = :status, #token = :next, leaseUntil = :null, nextAttemptAt = :nextAt, lastStatusCode = :code, lastError = :error, deliveredAt = :deliveredAt, attemptLog = list_append(if_not_exists(attemptLog, :empty), :entry)',
    condition: '#token = :token AND #status = :delivering',
    values: {
      ':token': token,
      ':delivering': 'DELIVERING',
      ':status': outcome.status,
      ':next': outcome.status === 'PENDING' ? outcome.nextToken : null,
      ':nextAt': outcome.status === 'PENDING' ? outcome.nextAttemptAt : null,
      ':null': null,
      ':code': attempt.statusCode,
      ':error': attempt.error,
      ':deliveredAt': outcome.status === 'DELIVERED' ? attempt.startedAt : null,
      ':empty': [],
      ':entry': [attempt],
    },
  });
}

/**
 * Starts a new round of attempts (redeliver): allowed once the delivery has finished (DELIVERED, FAILED,
 * CANCELLED), or when a PENDING one has waited, or a DELIVERING one's lease ended, before `staleBefore`
 * (its queue message was lost).
 */
export function restartDelivery(
  deps: Deps,
  delivery: DeliveryKey,
  token: string,
  now: string,
  staleBefore: string,
): Promise<WebhookDeliveryItem | null> {
  return conditionalUpdate(deps, delivery, {
    expression:
      'SET #status = :pending, #token = :token, roundAttempts = :zero, nextAttemptAt = :now, leaseUntil = :null',
    condition:
      '(#status IN (:delivered, :failed, :cancelled) OR (#status = :pending AND nextAttemptAt < :stale) OR (#status = :delivering AND leaseUntil < :stale))',
    values: {
      ':token': token,
      ':pending': 'PENDING',
      ':delivering': 'DELIVERING',
      ':delivered': 'DELIVERED',
      ':failed': 'FAILED',
      ':cancelled': 'CANCELLED',
      ':now': now,
      ':stale': staleBefore,
      ':zero': 0,
      ':null': null,
    },
  });
}
