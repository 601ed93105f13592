import { nextStep, type WritePolicy } from '../domain/rate-limit/token-bucket.js';
import { ServiceUnavailableError } from '../errors.js';
import type { Deps } from '../runtime/deps.js';
import { updateConditionally, type UpdateOutcome } from './conditional-write.js';
import { keys } from './keys.js';
import { LOST_RACE, retryOnLostRace } from './lost-race.js';

/** What became of one request at the firm's bucket: a token taken or not, and the bucket's tat as now known. */
export interface BucketResult {
  allowed: boolean;
  tat: number;
}

/**
 * The last tat this instance saw per firm. tat never decreases, so a remembered value is a lower bound of the
 * stored one: it only chooses which conditional update to try first (a wrong guess costs one more call, never a
 * wrong answer), and a firm known to be beyond its ceiling is refused without any call until time catches up.
 */
const lastSeen = new Map<string, number>();
const LAST_SEEN_MAX = 10_000;

/**
 * Takes one token from the firm's ledger-writing bucket (`RATELIMIT#WRITES` in the main table), `now` in
 * microseconds. One conditional UpdateItem, chosen from the last tat this instance saw (shared/domain/rate-limit/
 * token-bucket.ts): refill (SET tat = now + T if tat ≤ now or absent) or take (SET tat = tat + T if
 * now < tat ≤ ceiling); a failed condition returns the item as it was (ALL_OLD), so the next step is decided
 * without a read, and it only moves forward (refill → take → refuse): at most two calls, one when the guess
 * holds, none for a refusal already known. A refusal writes nothing.
 */
export async function takeWriteToken(
  deps: Deps,
  firmId: string,
  policy: WritePolicy,
  now: number,
): Promise<BucketResult> {
  let known = lastSeen.get(firmId);
  const result = await retryOnLostRace(
    async (): Promise<BucketResult | typeof LOST_RACE> => {
      const step = nextStep(policy, now, known);
      if (step.kind === 'refuse') return { allowed: false, tat: step.tat };
      const outcome = await updateConditionally(deps, {
        TableName: deps.tables.main,
        Key: keys.writeBucket(firmId),
        ...(step.kind === 'refill'
          ? {
              UpdateExpression: 'SET tat = :next',
              ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
              ExpressionAttributeValues: { ':next': step.nextTat, ':now': step.now },
            }
          : {
              UpdateExpression: 'SET tat = tat + :token',
              ConditionExpression: 'tat > :now AND tat <= :ceiling',
              ExpressionAttributeValues: { ':token': step.add, ':now': step.now, ':ceiling': step.ceiling },
            }),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      if (outcome.status === 'committed') return { allowed: true, tat: Number(outcome.item.tat) };
      // The item as it was (none: refill); a conflict, which no writer of this item causes, keeps what we knew.
      if (outcome.status === 'condition-failed') known = storedTat(outcome);
      return LOST_RACE;
    },
    {
      // Refill, take, then a refusal decided from what the failed take returned; the rest is slack for conflicts.
      // A failed condition here is progress (the next step is known), not contention: retry at once.
      attempts: 5,
      maxBackoffMs: 0,
      exhausted: () => new ServiceUnavailableError("The firm's write limit could not be checked; retry", 1),
    },
  );
  remember(firmId, result.tat);
  return result;
}

/** The tat a failed conditional update found (DynamoDB's attribute-value form), if it found one. */
function storedTat(outcome: Extract<UpdateOutcome, { status: 'condition-failed' }>): number | undefined {
  const raw = outcome.old?.tat?.N;
  return raw === undefined ? undefined : Number(raw);
}

function remember(firmId: string, tat: number): void {
  if (lastSeen.size >= LAST_SEEN_MAX && !lastSeen.has(firmId)) lastSeen.clear();
  lastSeen.set(firmId, Math.max(tat, lastSeen.get(firmId) ?? 0));
}
