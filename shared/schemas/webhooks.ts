import * as z from 'zod';
import { isSubscribableEvent, SUBSCRIBABLE_EVENTS, unsubscribableReason } from '../domain/webhooks/events.js';
import type { WebhookEventName } from '../domain/webhooks/events.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../domain/webhooks/url-policy.js';
import { DELIVERY_STATUSES } from '../domain/webhooks/delivery.js';
import { PageQuery, paged, Timestamp } from './common.js';
import { uniqueArray } from './unique-items.js';
import { WellFormedString } from './storable-json.js';

const EventName = WellFormedString.max(100).meta({
  enum: [...SUBSCRIBABLE_EVENTS],
  description: 'A subscribable webhook event name',
});

/** The subscribed events: at least one, no repeats, each one of the twelve names (each bad one reported). */
const EventNames = uniqueArray(EventName, 'event name')
  .min(1, 'Subscribe to at least one event')
  .superRefine((names, context) => {
    names.forEach((name, index) => {
      if (!isSubscribableEvent(name))
        context.addIssue({ code: 'custom', path: [index], message: unsubscribableReason(name) });
    });
  })
  .transform((names) => names as WebhookEventName[]);

export const CreateWebhookBody = z.strictObject({
  url: WellFormedString.min(1).max(MAX_WEBHOOK_URL_LENGTH).meta({
    format: 'uri',
    description:
      'https URL on a public address (private, loopback, link-local and metadata addresses are refused, also when a host name resolves to one at delivery time). The embedded development stack also accepts http on 127.0.0.1 and localhost.',
  }),
  events: EventNames,
});

/** Longest overlap of a secret rotation: 7 days. */
export const MAX_ROTATION_OVERLAP_SECONDS = 604_800;

export const RotateSecretBody = z.strictObject({
  overlapSeconds: z.number().int().min(0).max(MAX_ROTATION_OVERLAP_SECONDS).default(86_400).meta({
    description:
      'How long the replaced secret keeps signing deliveries (a second v1 signature in webhook-signature); 0 ends it at once. Default 86400 (24 h), at most 604800 (7 days).',
  }),
});

export const Webhook = z
  .object({
    id: z.string(),
    firmId: z.string(),
    url: z.string(),
    secret: z.string().meta({
      description:
        'whsec_ + base64 of the key. X-Service-Signature: HMAC-SHA256 keyed with this whole string; webhook-signature (Standard Webhooks): keyed with the decoded bytes. Returned on create, list and rotate-secret',
    }),
    events: z.array(z.string()),
    isActive: z
      .boolean()
      .meta({ description: 'False once deactivated; deactivated endpoints receive nothing' }),
    createdAt: Timestamp,
    deactivatedAt: Timestamp.nullable(),
  })
  .meta({ id: 'Webhook' });

export const WebhookIdParam = z.object({ id: WellFormedString.min(1).max(200) });
export const DeliveryParams = z.object({
  id: WellFormedString.min(1).max(200),
  deliveryId: WellFormedString.min(1).max(200),
});

export const DeliveriesQuery = PageQuery.extend({
  status: z
    .enum(DELIVERY_STATUSES)
    .optional()
    .meta({ description: 'Only deliveries in this state (FAILED lists the dead letters)' }),
});

const DeliveryAttempt = z
  .object({
    attempt: z.number().int().meta({ description: 'Number of the attempt over the delivery’s life, from 1' }),
    startedAt: Timestamp,
    durationMs: z.number().int(),
    statusCode: z.number().int().nullable().meta({ description: 'Null when no HTTP status came back' }),
    error: z.string().nullable().meta({ description: 'Why the attempt failed; null on a 2xx' }),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const WebhookDelivery = z
  .object({
    id: z.string(),
    webhookId: z.string(),
    recordId: z.string(),
    sequenceNumber: z.number().int(),
    eventType: z.string(),
    event: z.string().meta({ description: 'Webhook event name (X-Service-Event)' }),
    status: z.enum(DELIVERY_STATUSES).meta({
      description:
        'PENDING: an attempt is queued; DELIVERING: one is running; DELIVERED: a 2xx came back; FAILED: retries exhausted (dead letter; redeliver to retry); CANCELLED: the endpoint was deactivated first',
    }),
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: Timestamp,
    lastAttemptAt: Timestamp.nullable(),
    nextAttemptAt: Timestamp.nullable(),
    deliveredAt: Timestamp.nullable(),
    attemptLog: z.array(DeliveryAttempt),
    payload: z.record(z.string(), z.unknown()).meta({ description: 'The delivered body (flat envelope)' }),
  })
  .meta({ id: 'WebhookDelivery' });

export const WebhookDeliveryPage = paged(WebhookDelivery, 'WebhookDeliveryPage');
