import { createHmac, randomBytes } from 'node:crypto';
import type { LedgerRecord } from '../../ledger/record.js';

/**
 * PENDING: an attempt is queued (the message carrying `token` may claim it). DELIVERING: an attempt holds
 * the lease until `leaseUntil`. DELIVERED: a 2xx came back. FAILED: the round's attempts are exhausted (the
 * dead letter; redeliver starts a new round). CANCELLED: the endpoint was deactivated before an attempt.
 */
export const DELIVERY_STATUSES = ['PENDING', 'DELIVERING', 'DELIVERED', 'FAILED', 'CANCELLED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The flat envelope every delivery carries (spec, Events, Delivery format): exactly these fields. */
export interface WebhookEnvelope {
  id: string;
  firmId: string;
  sequenceNumber: number;
  eventType: string;
  timestamp: string;
  documentHash: string;
  chainHash: string;
}

export function envelopeOf(record: Pick<LedgerRecord, keyof WebhookEnvelope>): WebhookEnvelope {
  return {
    id: record.id,
    firmId: record.firmId,
    sequenceNumber: record.sequenceNumber,
    eventType: record.eventType,
    timestamp: record.timestamp,
    documentHash: record.documentHash,
    chainHash: record.chainHash,
  };
}

export const EVENT_HEADER = 'X-Service-Event';
export const SIGNATURE_HEADER = 'X-Service-Signature';
export const DELIVERY_HEADER = 'X-Service-Delivery';

/** `sha256=<hex HMAC-SHA256 of the raw body keyed with the endpoint secret>`. */
export function signatureHeader(secret: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex')}`;
}

/**
 * A new endpoint secret: `whsec_` + standard base64 (with padding) of 32 random bytes (256 bits), the form
 * Standard Webhooks libraries accept. X-Service-Signature keys its HMAC with the whole string as it is;
 * webhook-signature with the 32 decoded bytes (standard-webhooks.ts). Secrets issued before were base64url.
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export interface RetrySchedule {
  /** Attempts per delivery round (the first one included) before the delivery is dead-lettered. */
  maxAttempts: number;
  /** Delay before the second attempt; each further one doubles it ... */
  baseDelaySeconds: number;
  /** ... up to this cap (at most 900 s, SQS's longest message delay). */
  maxDelaySeconds: number;
}

/** Seconds to wait after failed attempt `attempt` (1-based) of a round: base * 2^(attempt-1), capped. */
export function retryDelaySeconds(attempt: number, schedule: RetrySchedule): number {
  return Math.min(schedule.maxDelaySeconds, schedule.baseDelaySeconds * 2 ** (attempt - 1));
}

/** The production schedule: 8 attempts, waits 30 s, 1, 2, 4, 8 min, then 15, 15 min: about 45 min in all. */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  maxAttempts: 8,
  baseDelaySeconds: 30,
  maxDelaySeconds: 900,
};
