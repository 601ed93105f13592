import { LEDGER_EVENT_TYPES, WEBHOOK_EVENT_NAMES, type LedgerEventType } from '../../ledger/event-types.js';

export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[keyof typeof WEBHOOK_EVENT_NAMES];

/** The names a webhook registration accepts: the spec's twelve, in its order, then ledger.tampering-detected (issue 32). */
export const SUBSCRIBABLE_EVENTS: readonly WebhookEventName[] = Object.values(WEBHOOK_EVENT_NAMES);

const SUBSCRIBABLE = new Set<string>(SUBSCRIBABLE_EVENTS);
const LEDGER_TYPES = new Set<string>(LEDGER_EVENT_TYPES);

export function isSubscribableEvent(name: string): name is WebhookEventName {
  return SUBSCRIBABLE.has(name);
}

/** The webhook name of a ledger event type, or null when it is written to the ledger only. */
export function webhookNameOf(eventType: LedgerEventType): WebhookEventName | null {
  return (WEBHOOK_EVENT_NAMES as Partial<Record<LedgerEventType, WebhookEventName>>)[eventType] ?? null;
}

/** Does an endpoint get records of this event type? Active, and subscribed to the type's webhook name. */
export function endpointWants(
  endpoint: { isActive: boolean; events: readonly string[] },
  eventType: LedgerEventType,
): boolean {
  const name = webhookNameOf(eventType);
  return name !== null && endpoint.isActive && endpoint.events.includes(name);
}

/** Why `name` cannot be subscribed to, for the 400 that names it. */
export function unsubscribableReason(name: string): string {
  if (LEDGER_TYPES.has(name)) {
    const webhookName = webhookNameOf(name as LedgerEventType);
    return webhookName === null
      ? `"${name}" is a ledger event type without a webhook name; it is written to the ledger only and is not deliverable`
      : `"${name}" is a ledger event type; subscribe to its webhook name "${webhookName}"`;
  }
  return `"${name}" is not a webhook event; accepted: ${SUBSCRIBABLE_EVENTS.join(', ')}`;
}
