import * as z from 'zod';
import {
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryParams,
  RotateSecretBody,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookIdParam,
} from '../schemas/webhooks.js';
import { route } from './route.js';

/** Webhooks carry their signing secret, so only firm administrators (and the firm's API keys) manage them. */
const ADMIN = { kind: 'authenticated', credentials: 'any', roles: ['FIRM_ADMIN'] } as const;

export const listWebhooks = route({
  operationId: 'listWebhooks',
  method: 'GET',
  path: '/v1/firm/me/webhooks',
  handler: 'functions/webhooks/list-webhooks',
  auth: ADMIN,
  permissions: { main: 'read' },
  tag: 'Webhooks',
  summary: 'Webhook endpoints, active and deactivated, with their secrets',
  request: {},
  responses: { 200: { description: 'Endpoints, oldest first', schema: z.array(Webhook) } },
});

export const createWebhook = route({
  operationId: 'createWebhook',
  method: 'POST',
  path: '/v1/firm/me/webhooks',
  handler: 'functions/webhooks/create-webhook',
  auth: ADMIN,
  permissions: { main: 'write' },
  tag: 'Webhooks',
  summary: 'Register a webhook endpoint',
  description:
    'events must name only subscribable webhook events (400 naming each other value, including ledger event types). The URL must be https on a public address. The service generates the secret.',
  request: { body: CreateWebhookBody },
  responses: { 201: { description: 'The endpoint with its secret', schema: Webhook } },
});

export const deactivateWebhook = route({
  operationId: 'deactivateWebhook',
  method: 'DELETE',
  path: '/v1/firm/me/webhooks/{id}',
  handler: 'functions/webhooks/deactivate-webhook',
  auth: ADMIN,
  permissions: { main: 'write' },
  tag: 'Webhooks',
  summary: 'Deactivate a webhook endpoint (kept, isActive false; receives nothing, not even queued attempts)',
  request: { params: WebhookIdParam },
  responses: { 204: { description: 'Deactivated (also when it already was)' } },
});

export const rotateWebhookSecret = route({
  operationId: 'rotateWebhookSecret',
  method: 'POST',
  path: '/v1/firm/me/webhooks/{id}/rotate-secret',
  handler: 'functions/webhooks/rotate-secret',
  auth: ADMIN,
  permissions: { main: 'write' },
  tag: 'Webhooks',
  summary: 'Replace the signing secret; the old one keeps signing deliveries for an overlap window',
  description:
    'Returns the endpoint with its new secret. For overlapSeconds (default 86400) each delivery carries a v1 signature for the new and for the previous secret in webhook-signature, new first, space-separated; afterwards only the new one. X-Service-Signature uses the new secret at once. Rotating again ends the overlap of an earlier rotation. 404 for an unknown or deactivated endpoint.',
  request: { params: WebhookIdParam, body: RotateSecretBody },
  bodyOptional: true,
  responses: { 200: { description: 'The endpoint with its new secret', schema: Webhook } },
});

export const listWebhookDeliveries = route({
  operationId: 'listWebhookDeliveries',
  method: 'GET',
  path: '/v1/firm/me/webhooks/{id}/deliveries',
  handler: 'functions/webhooks/list-deliveries',
  auth: ADMIN,
  permissions: { main: 'read' },
  tag: 'Webhooks',
  summary: "An endpoint's delivery log: one entry per delivered record with every attempt",
  request: { params: WebhookIdParam, query: DeliveriesQuery },
  responses: { 200: { description: 'Deliveries, newest first', schema: WebhookDeliveryPage } },
});

export const redeliverWebhookDelivery = route({
  operationId: 'redeliverWebhookDelivery',
  method: 'POST',
  path: '/v1/firm/me/webhooks/{id}/deliveries/{deliveryId}/redeliver',
  handler: 'functions/webhooks/redeliver',
  auth: ADMIN,
  permissions: { main: 'write', queues: ['webhooks'] },
  tag: 'Webhooks',
  summary: 'Deliver a finished delivery again (same body and webhook-id) with a new round of retries',
  description:
    '409 when the endpoint is deactivated or an attempt of this delivery is already queued or running.',
  request: { params: DeliveryParams },
  responses: { 202: { description: 'The delivery, PENDING again', schema: WebhookDelivery } },
});
