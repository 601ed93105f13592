import type { Deps } from '../runtime/deps.js';
import { writeConditionally, type TransactItem, type WriteOutcome } from './conditional-write.js';
import { send } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';

/**
 * Append intents: an append waiting in the firm's partition of the ledger table (`APPEND#<recordId>`) for the
 * instance that holds the firm's sequencer to seal and commit it. The commit turns the intent into its result
 * in the same transaction as the record (`COMMITTED`, with the record's canonical bytes); an append whose own
 * condition fails gets `FAILED` with the index of the failed write. The asker reads its result and deletes it.
 */
export type IntentState =
  | { state: 'PENDING' }
  | { state: 'COMMITTED'; sequenceNumber: number; body: string }
  | { state: 'FAILED'; failedItem: number };

const PENDING = 'PENDING';

/** What the store needs of an append: where it goes and its id. The rest is kept as JSON, as given. */
export interface IntentOf {
  firmId: string;
  recordId: string;
}

export async function putIntent(deps: Deps, append: IntentOf): Promise<void> {
  await send(deps.db, 'Put', {
    TableName: deps.tables.ledger,
    Item: {
      ...keys.appendIntent(append.firmId, append.recordId),
      state: PENDING,
      append: JSON.stringify(append),
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  });
}

/**
 * The firm's waiting appends, oldest first (strongly consistent), among the first `limit` intents, and the
 * record ids of results settled before `staleBefore` (ISO time) that their asker never collected because it
 * died, for the caller to clear. Askers collect their results within milliseconds, so few are ever read.
 */
export async function listIntents<T extends IntentOf>(
  deps: Deps,
  firmId: string,
  limit: number,
  staleBefore: string,
): Promise<{ pending: T[]; stale: string[] }> {
  const { Items = [] } = await send(deps.db, 'Query', {
    TableName: deps.tables.ledger,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ':prefix': SK_PREFIX.appendIntent },
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

/** The write that records a committed append's result, conditional on the intent still waiting. */
export function committedIntentItem(
  deps: Deps,
  append: IntentOf,
  sequenceNumber: number,
  body: string,
  settledAt: string,
): TransactItem {
  return {
    Put: {
      TableName: deps.tables.ledger,
      Item: {
        ...keys.appendIntent(append.firmId, append.recordId),
        state: 'COMMITTED',
        sequenceNumber,
        body,
        settledAt,
      },
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
  if (Item.state === 'COMMITTED')
    return { state: 'COMMITTED', sequenceNumber: Item.sequenceNumber as number, body: Item.body as string };
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

/** Clears a collected result. */
export async function deleteIntent(deps: Deps, firmId: string, recordId: string): Promise<void> {
  await send(deps.db, 'Delete', { TableName: deps.tables.ledger, Key: keys.appendIntent(firmId, recordId) });
}
