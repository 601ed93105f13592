/**
 * A firm's ledger-writing limit as a token bucket (docs/architecture.md §5, "Fair per-firm limits"): `burst`
 * tokens at most, refilled at `ratePerSecond`; a request takes one token or is refused. Kept in its GCRA form
 * (the generic cell rate algorithm, ITU-T I.371, equivalent to a token bucket): the whole state is one number,
 * the bucket's theoretical arrival time `tat` (microseconds since the epoch), so it fits one DynamoDB attribute
 * updated by one conditional UpdateItem.
 *
 * With T = 1 s / rate (one token's time) and `now`, the bucket holds (now + burst·T − tat) / T tokens, at most
 * `burst`: it is full when tat ≤ now (or no state yet). Taking a token moves tat to max(tat, now) + T, allowed
 * while that stays within burst·T of now. `tat` never decreases, so any value once read is a lower bound of the
 * current one. Pure arithmetic, in whole microseconds (safe integers for the next 250 years).
 */
export interface WritePolicy {
  /** Tokens added per second (the sustained rate); may be below 1. */
  ratePerSecond: number;
  /** Bucket size: requests allowed at once after a pause (at least 1). */
  burst: number;
  /**
   * At most this many of the firm's ledger-writing requests in flight at once (./write-slots.ts; at least 1);
   * absent: no cap. Not part of the bucket's arithmetic: the store checks both in one conditional update.
   */
  concurrency?: number;
}

const MICROS_PER_SECOND = 1_000_000;

/** One token's time, in whole microseconds (at least 1). */
export function tokenMicros(policy: WritePolicy): number {
  return Math.max(1, Math.round(MICROS_PER_SECOND / policy.ratePerSecond));
}

/** The highest tat before which a token can still be taken (burst − 1 tokens ahead of now). */
function admitCeiling(policy: WritePolicy, now: number): number {
  return now + (policy.burst - 1) * tokenMicros(policy);
}

/**
 * What a request does, given the bucket's tat as last known (undefined: never seen), in one of three forms:
 * - `refill`: the bucket is full (tat ≤ now): set tat to now + T, if tat is still ≤ now (or absent);
 * - `take`: the bucket is partly used: add T to tat, if tat is still within (now, ceiling];
 * - `refuse`: tat is beyond the ceiling: no token; nothing written.
 * Because tat never decreases, a failed condition only ever moves a request forward (refill → take → refuse).
 */
export type BucketStep =
  | { kind: 'refill'; now: number; nextTat: number }
  | { kind: 'take'; now: number; add: number; ceiling: number }
  | { kind: 'refuse'; tat: number };

export function nextStep(policy: WritePolicy, now: number, knownTat: number | undefined): BucketStep {
  const token = tokenMicros(policy);
  if (knownTat === undefined || knownTat <= now) return { kind: 'refill', now, nextTat: now + token };
  const ceiling = admitCeiling(policy, now);
  if (knownTat <= ceiling) return { kind: 'take', now, add: token, ceiling };
  return { kind: 'refuse', tat: knownTat };
}

/**
 * The state a client is told about (draft-ietf-httpapi-ratelimit-headers): whole tokens left, seconds until the
 * next token (at least 1, so it is never "now"), and for a refusal the same seconds as Retry-After.
 */
export interface BucketView {
  allowed: boolean;
  remaining: number;
  /** Seconds until at least one more token is in the bucket (≥ 1). */
  nextTokenSeconds: number;
}

/** After a token was taken and the bucket's tat became `tat`. */
export function admitted(policy: WritePolicy, now: number, tat: number): BucketView {
  const token = tokenMicros(policy);
  const credit = creditMicros(policy, now, tat);
  const remaining = Math.min(policy.burst - 1, Math.floor(credit / token));
  const untilNext = token - (credit - remaining * token);
  return { allowed: true, remaining, nextTokenSeconds: wholeSeconds(untilNext) };
}

/** A refused request: no token until tat is back within the ceiling. */
export function refused(policy: WritePolicy, now: number, tat: number): BucketView {
  return { allowed: false, remaining: 0, nextTokenSeconds: wholeSeconds(tat - admitCeiling(policy, now)) };
}

/**
 * A request the concurrency cap refused (./write-slots.ts): the bucket was not drawn from, so it still holds
 * its whole tokens at tat; the client may come back as soon as one of its own requests in flight is answered,
 * which the soonest Retry-After (1 s) covers.
 */
export function notDrawn(policy: WritePolicy, now: number, tat: number): BucketView {
  return {
    allowed: false,
    remaining: Math.min(policy.burst, Math.floor(creditMicros(policy, now, tat) / tokenMicros(policy))),
    nextTokenSeconds: 1,
  };
}

/** The bucket's content at `now` given its tat, in microseconds of tokens: (now + burst·T − tat), at least 0. */
function creditMicros(policy: WritePolicy, now: number, tat: number): number {
  return Math.max(0, now + policy.burst * tokenMicros(policy) - tat);
}

/** The policy's window for RateLimit-Policy: the seconds a drained bucket takes to fill (≥ 1, rounded up). */
export function refillSeconds(policy: WritePolicy): number {
  return wholeSeconds(policy.burst * tokenMicros(policy));
}

const wholeSeconds = (micros: number) => Math.max(1, Math.ceil(micros / MICROS_PER_SECOND));

/**
 * How long an instance may keep refusing a credential after a refusal, without asking the bucket again
 * (microseconds since the epoch): until the Retry-After the client was told (`now` + nextTokenSeconds), but never
 * past `tat`, the instant the bucket could be full again. So a held refusal is never wrong and never wastes a
 * token: the tokens that arrive during the hold stay in the bucket (it cannot overflow before `tat`, and `tat`
 * as seen is a lower bound of the stored one), and the client was told not to come back sooner.
 */
export function refusalHoldUntil(policy: WritePolicy, now: number, tat: number): number {
  return Math.min(now + refused(policy, now, tat).nextTokenSeconds * MICROS_PER_SECOND, tat);
}
