import { nextStep, type BucketStep, type WritePolicy } from '../domain/rate-limit/token-bucket.js';
import { freeSlot, type SlotLeases } from '../domain/rate-limit/write-slots.js';
import { ServiceUnavailableError } from '../errors.js';
import { firmWriteSlotSeconds } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { updateConditionally, type TransactItem, type UpdateOutcome } from './conditional-write.js';
import { keys } from './keys.js';
import { LOST_RACE, retryOnLostRace } from './lost-race.js';

/** A slot a request holds (../domain/rate-limit/write-slots.ts): its number and when its lease ends (µs). */
export interface HeldSlot {
  slot: number;
  leaseEnd: number;
}

/**
 * What became of one request at the firm's bucket: a token taken (and, under a cap, a slot held) or not, and the
 * bucket's tat as now known. A refusal says which limit refused: the bucket (`rate`) or the cap (`concurrency`,
 * no token taken).
 */
export type BucketResult =
  | { allowed: true; tat: number; slot?: HeldSlot }
  | { allowed: false; tat: number; refusedBy: 'rate' | 'concurrency' };

/** The bucket's item as this instance last saw it: tat (a lower bound of the stored one) and the slots' leases. */
interface Seen {
  tat: number | undefined;
  leases: SlotLeases;
}

/**
 * What this instance last saw per firm. tat never decreases, so a remembered tat is a lower bound of the stored
 * one: it only chooses which conditional update to try first (a wrong guess costs one more call, never a wrong
 * answer), and a firm known to be beyond its ceiling is refused without any call until time catches up. Leases
 * come and go, so a remembered lease only chooses which slot to try: the cap refuses only on what DynamoDB just
 * returned.
 */
const lastSeen = new Map<string, Seen>();
const LAST_SEEN_MAX = 10_000;
const NOTHING_SEEN: Seen = { tat: undefined, leases: [] };

/** The attribute of the bucket's item holding slot `n`'s lease. */
const slotAttribute = (slot: number) => `slot${slot}`;

/**
 * Takes one token from the firm's ledger-writing bucket (`RATELIMIT#WRITES` in the main table) and, when the
 * policy caps concurrency, one free slot with it; `now` in microseconds. One conditional UpdateItem, chosen from
 * what this instance last saw (shared/domain/rate-limit/token-bucket.ts): refill (SET tat = now + T if tat ≤ now
 * or absent) or take (SET tat = tat + T if now < tat ≤ ceiling), and under a cap SET slotN = now + lease if slotN
 * is free (absent or its lease ended). A failed condition returns the item as it was (ALL_OLD), so the next step
 * is decided without a read: the bucket only moves forward (refill → take → refuse), and a cap with no free slot
 * in what DynamoDB returned refuses without taking a token. One call when the guess holds, none for a refusal by
 * the bucket already known. A refusal writes nothing.
 */
export async function takeWriteToken(
  deps: Deps,
  firmId: string,
  policy: WritePolicy,
  now: number,
): Promise<BucketResult> {
  let seen = lastSeen.get(firmId) ?? NOTHING_SEEN;
  /** Whether `seen` came from DynamoDB during this request (a failed condition), not from memory. */
  let fresh = false;
  const cap = policy.concurrency;
  const leaseEnd = now + firmWriteSlotSeconds() * 1_000_000;
  // Refill, take, a refusal decided from what the failed take returned, and a failed try per slot taken by
  // another instance in between; the rest is slack for conflicts. Beyond that, a capped firm's slots are being
  // fought over: the cap refuses (a 429 the client retries), never a 503.
  const attempts = 5 + (cap ?? 0);
  const result = await retryOnLostRace(
    async (attempt): Promise<BucketResult | typeof LOST_RACE> => {
      const step = nextStep(policy, now, seen.tat);
      if (step.kind === 'refuse') return { allowed: false, tat: step.tat, refusedBy: 'rate' };
      let slot: number | undefined;
      if (cap !== undefined) {
        slot = freeSlot(cap, seen.leases, now);
        if (slot === undefined && fresh) return concurrencyRefusal(seen, now);
        // Remembered leases may have been given back since: try the one that ends first.
        slot ??= earliestLease(cap, seen.leases);
      }
      const held = slot === undefined ? undefined : { slot, leaseEnd };
      const outcome = await updateConditionally(deps, {
        TableName: deps.tables.main,
        Key: keys.writeBucket(firmId),
        ...stepUpdate(step, held),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      if (outcome.status === 'committed') {
        seen = seenIn(outcome.item, cap);
        return { allowed: true, tat: seen.tat!, ...(held ? { slot: held } : {}) };
      }
      // The item as it was (none: refill); a conflict, which no writer of this item causes, keeps what we knew.
      if (outcome.status === 'condition-failed') {
        seen = storedItem(outcome, cap);
        fresh = true;
      }
      if (attempt === attempts && cap !== undefined) return concurrencyRefusal(seen, now);
      return LOST_RACE;
    },
    {
      // A failed condition here is progress (the next step is known), not contention: retry at once.
      attempts,
      maxBackoffMs: 0,
      exhausted: () => new ServiceUnavailableError("The firm's write limit could not be checked; retry", 1),
    },
  );
  remember(firmId, seen);
  return result;
}

/**
 * The update of one step of the bucket (refill or take) and, under a cap, of the slot taken with it: both
 * conditions must hold, or nothing is written.
 */
function stepUpdate(step: Exclude<BucketStep, { kind: 'refuse' }>, held: HeldSlot | undefined) {
  const bucket =
    step.kind === 'refill'
      ? {
          set: 'tat = :next',
          condition: 'attribute_not_exists(tat) OR tat <= :now',
          values: { ':next': step.nextTat, ':now': step.now },
        }
      : {
          set: 'tat = tat + :token',
          condition: 'tat > :now AND tat <= :ceiling',
          values: { ':token': step.add, ':now': step.now, ':ceiling': step.ceiling },
        };
  if (!held)
    return {
      UpdateExpression: `SET ${bucket.set}`,
      ConditionExpression: bucket.condition,
      ExpressionAttributeValues: bucket.values,
    };
  return {
    UpdateExpression: `SET ${bucket.set}, #slot = :lease`,
    ConditionExpression: `(${bucket.condition}) AND (attribute_not_exists(#slot) OR #slot <= :now)`,
    ExpressionAttributeNames: { '#slot': slotAttribute(held.slot) },
    ExpressionAttributeValues: { ...bucket.values, ':lease': held.leaseEnd },
  };
}

/**
 * Gives back a slot taken by takeWriteToken, once the request's answer is built: REMOVE slotN if it still holds
 * this request's lease (a lease that ran out may be another request's now: then nothing is removed).
 */
export async function releaseWriteSlot(
  deps: Deps,
  firmId: string,
  cap: number,
  held: HeldSlot,
): Promise<void> {
  const outcome = await updateConditionally(deps, {
    TableName: deps.tables.main,
    Key: keys.writeBucket(firmId),
    UpdateExpression: 'REMOVE #slot',
    ConditionExpression: '#slot = :lease',
    ExpressionAttributeNames: { '#slot': slotAttribute(held.slot) },
    ExpressionAttributeValues: { ':lease': held.leaseEnd },
  });
  if (outcome.status === 'committed') remember(firmId, seenIn(outcome.item, cap));
}

/**
 * The slot's give-back as a write of the request's first ledger append (./write-slot-context.ts): REMOVE slotN,
 * unconditional, so it can never fail the batch it rides in.
 */
export function slotGiveBackItem(deps: Deps, firmId: string, held: HeldSlot): TransactItem {
  return {
    Update: {
      TableName: deps.tables.main,
      Key: keys.writeBucket(firmId),
      UpdateExpression: 'REMOVE #slot',
      ExpressionAttributeNames: { '#slot': slotAttribute(held.slot) },
    },
  };
}

function concurrencyRefusal(seen: Seen, now: number): BucketResult {
  return { allowed: false, tat: seen.tat ?? now, refusedBy: 'concurrency' };
}

/** The slot (below the cap) whose remembered lease ends first. */
function earliestLease(cap: number, leases: SlotLeases): number {
  let earliest = 0;
  for (let slot = 1; slot < cap; slot++) if ((leases[slot] ?? 0) < (leases[earliest] ?? 0)) earliest = slot;
  return earliest;
}

/** The bucket's item as returned after a write (plain values). */
function seenIn(item: Record<string, unknown>, cap: number | undefined): Seen {
  const number = (name: string) => (item[name] === undefined ? undefined : Number(item[name]));
  return { tat: number('tat'), leases: leasesOf(cap, number) };
}

/** The item a failed conditional update found (DynamoDB's attribute-value form); none is an empty bucket. */
function storedItem(
  outcome: Extract<UpdateOutcome, { status: 'condition-failed' }>,
  cap: number | undefined,
): Seen {
  const old = outcome.old as Record<string, { N?: string }> | undefined;
  const number = (name: string) => {
    const raw = old?.[name]?.N;
    return raw === undefined ? undefined : Number(raw);
  };
  return { tat: number('tat'), leases: leasesOf(cap, number) };
}

/** The leases of the slots below the cap, each read by `read` from its attribute. */
function leasesOf(cap: number | undefined, read: (attribute: string) => number | undefined): SlotLeases {
  return Array.from({ length: cap ?? 0 }, (_, slot) => read(slotAttribute(slot)));
}

function remember(firmId: string, seen: Seen): void {
  if (lastSeen.size >= LAST_SEEN_MAX && !lastSeen.has(firmId)) lastSeen.clear();
  const before = lastSeen.get(firmId)?.tat;
  const tat =
    before === undefined || seen.tat === undefined ? (seen.tat ?? before) : Math.max(before, seen.tat);
  lastSeen.set(firmId, { tat, leases: seen.leases });
}
