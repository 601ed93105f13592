import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { WritePolicy } from '../domain/rate-limit/token-bucket.js';
import type { RouteDef } from '../routes/route.js';
import { presentedCredential } from './credential-headers.js';

/**
 * The refusals this instance holds (docs/architecture.md §5, "Fair per-firm limits"): after the firm's bucket
 * (or its concurrency cap) refused a credential on a limited route, the same credential on the same route is
 * refused again from memory until `refusalHoldUntil` (token-bucket.ts; for the cap, the Retry-After it was told,
 * services/write-limits.ts), before authentication and without any DynamoDB call. A refused request then costs
 * almost nothing, so a firm sending far beyond its limit cannot take the instances and the storage every other
 * firm's requests need.
 *
 * Only a credential that authenticated and passed the route's role checks is ever held, so a hold never turns
 * a 401 or a 403 into anything but the 429 its credential already got; a key revoked (or a token expired) during
 * a hold is answered 429 until the hold ends (at most the Retry-After it was told), then 401. Keys are SHA-256
 * digests of route and credential: no credential is kept in memory in clear.
 */
export interface HeldRefusal {
  policy: WritePolicy;
  /** The limit that refused: the firm's bucket or its concurrency cap. */
  refusedBy: 'rate' | 'concurrency';
  /** The bucket's whole tokens as last told (0 after the bucket's refusal). */
  remaining: number;
  /** Microseconds since the epoch. */
  until: number;
}

/** At most this many holds per instance; beyond it expired holds are dropped, then all (a hold is an optimisation). */
const MAX_HOLDS = 10_000;
const holds = new Map<string, HeldRefusal>();

/** The hold key of a request: its route and its credential header, or undefined when it carries none. */
export function holdKey(route: RouteDef, event: APIGatewayProxyEventV2): string | undefined {
  const credential = presentedCredential(event.headers);
  if (!credential) return undefined;
  return createHash('sha256')
    .update(`${route.method} ${route.path}\n${credential.kind}\n${credential.value}`)
    .digest('base64url');
}

/** The refusal held for this key at `now` (microseconds), if any. */
export function heldRefusal(key: string, now: number): HeldRefusal | undefined {
  const held = holds.get(key);
  if (!held) return undefined;
  if (held.until > now) return held;
  holds.delete(key);
  return undefined;
}

/** Holds a refusal for this key until `until` (microseconds). */
export function holdRefusal(key: string, held: HeldRefusal, now: number): void {
  if (held.until <= now) return;
  if (holds.size >= MAX_HOLDS) {
    for (const [k, h] of holds) if (h.until <= now) holds.delete(k);
    if (holds.size >= MAX_HOLDS) holds.clear();
  }
  holds.set(key, held);
}
