import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { forbiddenAddressReason } from '../domain/webhooks/address-policy.js';
import { generateWebhookSecret, type DeliveryStatus } from '../domain/webhooks/delivery.js';
import type { WebhookEventName } from '../domain/webhooks/events.js';
import { checkWebhookUrl, type UrlPolicy } from '../domain/webhooks/url-policy.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import {
  deactivateWebhook,
  getDelivery,
  getWebhook,
  deliveryListQuery,
  deliveryOf,
  listWebhooks,
  putWebhook,
  restartDelivery,
  rotateWebhookSecret,
  type WebhookDeliveryItem,
  type WebhookItem,
} from '../store/webhook-store.js';
import { LOST_RACE, retryOnLostRace } from '../store/lost-race.js';
import { asPage, FILTER_READ_FACTOR, readList, type Page } from './pages.js';
import { webhookConfig } from './webhook-config.js';
import { queueAttempt } from './webhook-delivery.js';

/** A PENDING delivery whose next attempt is this late lost its queue message; redeliver may restart it. */
const STALE_PENDING_MS = 30 * 60_000;

export function presentWebhook(webhook: WebhookItem) {
  const { id, firmId, url, secret, events, isActive, createdAt, deactivatedAt } = webhook;
  return { id, firmId, url, secret, events, isActive, createdAt, deactivatedAt };
}

export function presentDelivery(delivery: WebhookDeliveryItem) {
  return {
    id: delivery.id,
    webhookId: delivery.webhookId,
    recordId: delivery.recordId,
    sequenceNumber: delivery.sequenceNumber,
    eventType: delivery.eventType,
    event: delivery.event,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    createdAt: delivery.createdAt,
    lastAttemptAt: delivery.lastAttemptAt,
    nextAttemptAt: delivery.nextAttemptAt,
    deliveredAt: delivery.deliveredAt,
    attemptLog: delivery.attemptLog,
    payload: JSON.parse(delivery.body) as Record<string, unknown>,
  };
}

/**
 * The URL rules at registration: scheme, credentials and literal host (checkWebhookUrl), then every address
 * the host name resolves to now. Deliveries check the connected address again, every time. `what` names the
 * URL in the 400 (a witness's submission URL follows the same rules).
 */
export async function assertRegistrableUrl(
  raw: string,
  policy: UrlPolicy,
  what = 'Webhook URL',
): Promise<void> {
  const refused = (reason: string) =>
    new ValidationError(`${what} refused: it ${reason}`, [{ path: 'body.url', message: `URL ${reason}` }]);
  const checked = checkWebhookUrl(raw, policy);
  if (!checked.ok) throw refused(checked.reason);
  if (checked.ipLiteral !== null || checked.host === 'localhost' || checked.host.endsWith('.localhost'))
    return;
  let addresses: { address: string }[];
  try {
    addresses = await lookup(checked.host, { all: true, verbatim: true });
  } catch {
    throw refused(`names a host that does not resolve (${checked.host})`);
  }
  for (const { address } of addresses) {
    const reason = forbiddenAddressReason(address, { allowLoopback: policy.allowInsecureLoopback });
    if (reason !== null) throw refused(`names a host that resolves to ${address}, ${reason}`);
  }
}

export async function registerWebhook(
  deps: Deps,
  firmId: string,
  input: { url: string; events: WebhookEventName[] },
) {
  await assertRegistrableUrl(input.url, webhookConfig().policy);
  const webhook: WebhookItem = {
    id: newId('webhook'),
    firmId,
    url: input.url,
    secret: generateWebhookSecret(),
    events: input.events,
    isActive: true,
    createdAt: isoNow(deps.clock),
    deactivatedAt: null,
  };
  await putWebhook(deps, webhook);
  return presentWebhook(webhook);
}

/** Every endpoint of the firm, active and deactivated, oldest first. */
export async function firmWebhooks(deps: Deps, firmId: string) {
  const webhooks = await listWebhooks(deps, firmId);
  return webhooks.sort((a, b) => a.id.localeCompare(b.id)).map(presentWebhook);
}

export async function deactivate(deps: Deps, firmId: string, webhookId: string): Promise<void> {
  if (!(await deactivateWebhook(deps, firmId, webhookId, isoNow(deps.clock))))
    throw new NotFoundError('Webhook not found');
}

/** Default overlap of a rotation: the previous secret keeps signing deliveries for 24 h. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 86_400;

/**
 * Gives an active endpoint a new secret and returns it (the create shape). For `overlapSeconds` the secret it
 * replaces keeps signing deliveries too (a second v1 in webhook-signature), so receivers can switch over
 * without a failed delivery; with 0 it stops at once. X-Service-Signature uses the new secret from now on.
 * Only the secret just replaced overlaps: rotating again ends the overlap of an earlier one. 404 for an
 * unknown or deactivated endpoint.
 */
export async function rotateSecret(deps: Deps, firmId: string, webhookId: string, overlapSeconds: number) {
  const rotated = await retryOnLostRace(
    async () => {
      const current = await getWebhook(deps, firmId, webhookId);
      if (!current || !current.isActive) return null;
      const expiresAt = new Date(deps.clock.now().getTime() + overlapSeconds * 1000).toISOString();
      const outcome = await rotateWebhookSecret(
        deps,
        { firmId, webhookId, expectedSecret: current.secret },
        {
          secret: generateWebhookSecret(),
          previousSecret: overlapSeconds > 0 ? current.secret : null,
          previousSecretExpiresAt: overlapSeconds > 0 ? expiresAt : null,
        },
      );
      return outcome === 'lost-race' ? LOST_RACE : outcome;
    },
    { attempts: 5, exhausted: () => new ConflictError('The secret is being rotated concurrently; retry') },
  );
  if (!rotated) throw new NotFoundError('Webhook not found');
  return presentWebhook(rotated);
}

async function requireWebhook(deps: Deps, firmId: string, webhookId: string): Promise<WebhookItem> {
  const webhook = await getWebhook(deps, firmId, webhookId);
  if (!webhook) throw new NotFoundError('Webhook not found');
  return webhook;
}

/** An endpoint's delivery log, newest first, optionally one status (FAILED: its dead letters). */
export async function deliveryLog(
  deps: Deps,
  firmId: string,
  webhookId: string,
  query: { page: number; pageSize: number; cursor?: string | undefined; status?: DeliveryStatus | undefined },
): Promise<Page<ReturnType<typeof presentDelivery>>> {
  await requireWebhook(deps, firmId, webhookId);
  const scope = {
    firmId,
    query: { list: 'deliveries', webhookId, status: query.status, pageSize: query.pageSize },
  };
  // A status filter reads a bounded number of deliveries per request: its pages may be short (nextCursor).
  const read = await readList(
    deps,
    scope,
    query,
    deliveryListQuery(deps, firmId, webhookId, query.status),
    (item) => presentDelivery(deliveryOf(item)),
    query.status ? FILTER_READ_FACTOR * query.pageSize : undefined,
  );
  return asPage(read, query.pageSize);
}

/**
 * Starts a new round of attempts of a finished delivery (same body, same signature, same sequence number,
 * so a receiver that already has it deduplicates it). Refused for a deactivated endpoint and while an
 * attempt is queued or running.
 */
export async function redeliver(deps: Deps, firmId: string, webhookId: string, deliveryId: string) {
  const webhook = await requireWebhook(deps, firmId, webhookId);
  const delivery = await getDelivery(deps, firmId, webhookId, deliveryId);
  if (!delivery) throw new NotFoundError('Delivery not found');
  if (!webhook.isActive) throw new ConflictError('The webhook is deactivated; it receives nothing');
  const now = deps.clock.now();
  const token = randomUUID();
  const restarted = await restartDelivery(
    deps,
    { firmId, webhookId, id: deliveryId },
    token,
    now.toISOString(),
    new Date(now.getTime() - STALE_PENDING_MS).toISOString(),
  );
  if (!restarted) throw new ConflictError('An attempt of this delivery is already queued or running');
  await queueAttempt(deps, { firmId, webhookId, deliveryId, token });
  return presentDelivery(restarted);
}
