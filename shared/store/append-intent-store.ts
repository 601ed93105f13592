import type { Deps } from '../runtime/deps.js';
import { writeConditionally, type TransactItem, type WriteOutcome } from './conditional-write.js';
import { send } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

/**
 * Append intents: an append waiting in the firm's partition of the ledger table (`APPEND#<recordId>`) for the
 * instance that holds the firm's sequencer to seal and commit it. The commit deletes the intent in the same
 * transaction as the record, so a committed append is simply its record (the asker finds it by record id); an
 * append whose own condition fails gets `FAILED` with the index of the failed write, which its asker reads and
 * deletes.
 */
export type IntentState = { state: 'PENDING' } | { state: 'FAILED'; failedItem: number };

const PENDING = 'PENDING';

/** What the store needs of an append: where it goes and its id. The rest is kept as JSON, as given. */
export interface IntentOf {
  firmId: string;
  recordId: string;
}

function intentPut(deps: Deps, append: IntentOf) {
  return {
    TableName: deps.tables.ledger,
    Item: {
      ...keys.appendIntent(append.firmId, append.recordId),
      state: PENDING,
      append: JSON.stringify(append),
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  };
}

export async function putIntent(deps: Deps, append: IntentOf): Promise<void> {
  await send(deps.db, 'Put', intentPut(deps, append));
}

/**
 * Leaves the intent only if another instance holds the firm's sequencer lease now (held and not run out at
 * `now`), in one transaction: true when it was left, false when the lease is free (nothing written). One call
 * where "try to take the lease, fail, leave the intent" took two; a holder that lets go afterwards still finds
 * the intent (it looks once more after releasing).
 */
export async function putIntentIfLeaseHeld(deps: Deps, append: IntentOf, now: number): Promise<boolean> {
  const outcome = await writeConditionally(deps, [
    { Put: intentPut(deps, append) },
    {
      ConditionCheck: {
        TableName: deps.tables.ledger,
        Key: keys.sequencerLease(append.firmId),
        ConditionExpression: 'attribute_exists(pk) AND #until >= :now',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':now': now },
      },
    },
  ]);
  if (outcome.status === 'committed') return true;
  if (outcome.status === 'condition-failed' && !outcome.failedItems.includes(0)) return false;
  throw new Error(`Leaving append intent ${append.recordId} failed: ${JSON.stringify(outcome)}`);
}

/**
 * The firm's waiting appends, oldest first (strongly consistent), among the first `limit` intents, and the
 * record ids of failures settled before `staleBefore` (ISO time) that their asker never collected because it
 * died, for the caller to clear. Only failures stay behind (a commit deletes its intents), so few are ever read.
 */
export async function listIntents<T extends IntentOf>(
  deps: Deps,
  firmId: string,
  limit: number,
  staleBefore: string,
): Promise<{ pending: T[]; stale: string[] }> {
  const { Items = [] } = await send(deps.db, 'Query', {
    TableName: deps.tables.ledger,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', SK_PREFIX.appendIntent),
    },
    ConsistentRead: true,
    Limit: limit,
  });
  const pending: T[] = [];
  const stale: string[] = [];
  for (const item of Items) {
    if (item.state === PENDING) pending.push(JSON.parse(item.append as string) as T);
    else if ((item.settledAt as string) < staleBefore)
      stale.push((item.sk as string).slice(SK_PREFIX.appendIntent.length));
  }
  return { pending, stale };
}

/**
 * The write that takes a committed append's intent away, in its record's transaction, conditional on the intent
 * still waiting (its asker may have withdrawn it). Nothing else is written for the asker: its record is the result.
 */
export function committedIntentItem(deps: Deps, append: IntentOf): TransactItem {
  return {
    Delete: {
      TableName: deps.tables.ledger,
      Key: keys.appendIntent(append.firmId, append.recordId),
      ConditionExpression: '#state = :pending',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':pending': PENDING },
    },
  };
}

/** Records that a waiting append failed its own condition (the `failedItem`-th of its extra writes). */
export async function failIntent(
  deps: Deps,
  append: IntentOf,
  failedItem: number,
  settledAt: string,
): Promise<WriteOutcome> {
  return writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.ledger,
        Item: {
          ...keys.appendIntent(append.firmId, append.recordId),
          state: 'FAILED',
          failedItem,
          settledAt,
        },
        ConditionExpression: '#state = :pending',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':pending': PENDING },
      },
    },
  ]);
}

export async function readIntent(deps: Deps, firmId: string, recordId: string): Promise<IntentState | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.ledger,
    Key: keys.appendIntent(firmId, recordId),
    ConsistentRead: true,
  });
  if (!Item) return null;
  if (Item.state === 'FAILED') return { state: 'FAILED', failedItem: Item.failedItem as number };
  return { state: 'PENDING' };
}

/** Takes back an append that is still waiting (its asker gives up): committed when it was withdrawn. */
export function withdrawIntent(deps: Deps, firmId: string, recordId: string): Promise<WriteOutcome> {
  return writeConditionally(deps, [
    {
      Delete: {
        TableName: deps.tables.ledger,
        Key: keys.appendIntent(firmId, recordId),
        ConditionExpression: '#state = :pending',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':pending': PENDING },
      },
    },
  ]);
}

/** Clears a collected failure. */
export async function deleteIntent(deps: Deps, firmId: string, recordId: string): Promise<void> {
  await send(deps.db, 'Delete', { TableName: deps.tables.ledger, Key: keys.appendIntent(firmId, recordId) });
}
