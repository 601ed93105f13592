import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks (https://www.standardwebhooks.com/), sent next to the spec's X-Service-Signature:
 * `webhook-id` (the same on every attempt and redelivery of one delivery), `webhook-timestamp` (Unix seconds
 * of this attempt) and `webhook-signature`, one `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` per
 * valid secret, space-separated, the newest first.
 */
export const STANDARD_ID_HEADER = 'webhook-id';
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature';

export const SECRET_PREFIX = 'whsec_';

/**
 * The HMAC key of a `whsec_` secret: the bytes its base64 part encodes. Secrets issued before Standard
 * Webhooks were `whsec_` + base64url (no padding); node's base64 decoder reads both alphabets, so such an
 * endpoint is signed with the same 32 key bytes a receiver gets by re-encoding its secret as standard base64.
 */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('A webhook secret must encode at least one key byte');
  return key;
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` keyed with the secret's key bytes. */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', standardWebhookKey(secret))
    .update(`${id}.${timestamp}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers of one attempt, signed with each secret in order (newest first). */
export function standardWebhookHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  if (secrets.length === 0) throw new Error('A delivery needs at least one signing secret');
  return {
    [STANDARD_ID_HEADER]: id,
    [STANDARD_TIMESTAMP_HEADER]: String(timestamp),
    [STANDARD_SIGNATURE_HEADER]: secrets.map((s) => standardSignature(s, id, timestamp, body)).join(' '),
  };
}

/** Unix seconds of an instant (webhook-timestamp). */
export const unixSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);

/**
 * The secrets an attempt at `now` signs with: the current one, then the previous one while its overlap
 * window (after a rotation) lasts.
 */
export function signingSecrets(
  endpoint: { secret: string; previousSecret?: string | null; previousSecretExpiresAt?: string | null },
  now: Date,
): string[] {
  const { secret, previousSecret, previousSecretExpiresAt } = endpoint;
  const previousValid =
    previousSecret != null &&
    previousSecretExpiresAt != null &&
    Date.parse(previousSecretExpiresAt) > now.getTime();
  return previousValid ? [secret, previousSecret] : [secret];
}
