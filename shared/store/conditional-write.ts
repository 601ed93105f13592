import type { AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../runtime/deps.js';
import { dynamoSdk, send } from './dynamo.js';
import { markWith } from './idempotency-context.js';

/** One write of a DynamoDB transaction (Put, Update, Delete or ConditionCheck), in DocumentClient form. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * What became of a conditional write. Nothing is written unless it is `committed`:
 * - `condition-failed`: the conditions of the items at `failedItems` (indexes into the items given) did not hold;
 *   the caller decides what that means (another writer won, the state moved, the request is a conflict). A single
 *   write that asked for `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` also gets the item as it was, `old`,
 *   in DynamoDB's attribute-value form (`{ tat: { N: '…' } }`: the SDK leaves an error's item marshalled), so
 *   the caller can decide again without reading it;
 * - `conflict`: no condition failed, but a concurrent transaction touched the same items; trying again on a
 *   fresh read is the usual answer.
 * Any other failure (throttling, validation, a network error) is thrown, never reported as an outcome.
 */
export type WriteOutcome =
  | { readonly status: 'committed' }
  | {
      readonly status: 'condition-failed';
      readonly failedItems: readonly number[];
      readonly old?: Readonly<Record<string, AttributeValue>>;
    }
  | { readonly status: 'conflict' };

/** Every outcome but `committed`: what a caller that answers with written data passes on. */
export type NotCommitted = Exclude<WriteOutcome, { status: 'committed' }>;

const COMMITTED = { status: 'committed' } as const;

/**
 * Commits `items` in one transaction (DynamoDB: up to 100 items, 4 MB, no item twice). A single item is sent
 * as a plain conditional write instead (half the write units of a one-item transaction), with the same outcome.
 */
export async function writeConditionally(deps: Deps, items: readonly TransactItem[]): Promise<WriteOutcome> {
  const mark = mainTableOnly(deps, items) ? markWith(deps, null) : undefined;
  if (!mark) return writeItems(deps, items);
  return await mark.settle(await writeItems(deps, [...items, mark.item]), items.length);
}

/**
 * A write of the main table alone that writes something (not only ConditionChecks) is a request's main write:
 * when the request holds an `Idempotency-Key`, the key's mark joins its transaction (./idempotency-context.ts).
 * Ledger appends carry the mark themselves; the sequencer's own writes touch the ledger table (or only check).
 */
function mainTableOnly(deps: Deps, items: readonly TransactItem[]): boolean {
  return (
    items.some((item) => !item.ConditionCheck) &&
    items.every(
      (item) =>
        (item.Put ?? item.Update ?? item.Delete ?? item.ConditionCheck)?.TableName === deps.tables.main,
    )
  );
}

async function writeItems(deps: Deps, items: readonly TransactItem[]): Promise<WriteOutcome> {
  if (items.length === 1) return writeOne(deps, items[0]!);
  try {
    await send(deps.db, 'TransactWrite', { TransactItems: [...items] });
    return COMMITTED;
  } catch (error) {
    const { TransactionCanceledException } = await dynamoSdk();
    if (!(error instanceof TransactionCanceledException)) throw error;
    return outcomeOfCancellation(error);
  }
}

/**
 * Writes new items whose conditions only guard their fresh keys (new ids, a new key's hash) against a
 * collision: nothing can legitimately be in the way, so any outcome but `committed` is a fault, thrown.
 */
export async function writeNew(deps: Deps, items: readonly TransactItem[], what: string): Promise<void> {
  const outcome = await writeConditionally(deps, items);
  if (outcome.status !== 'committed') throw new Error(`Writing ${what} failed: ${JSON.stringify(outcome)}`);
}

/** True when the outcome is a failed condition of the item at `index`. */
export function conditionFailedAt(outcome: WriteOutcome, index: number): boolean {
  return outcome.status === 'condition-failed' && outcome.failedItems.includes(index);
}

function outcomeOfCancellation(error: TransactionCanceledException): NotCommitted {
  const reasons = error.CancellationReasons ?? [];
  const failedItems = reasons.flatMap((reason, index) =>
    reason.Code === 'ConditionalCheckFailed' ? [index] : [],
  );
  if (failedItems.length > 0) return { status: 'condition-failed', failedItems };
  if (reasons.some((reason) => reason.Code === 'TransactionConflict')) return { status: 'conflict' };
  throw error;
}

/** The outcome of a single conditional Update that asked for the item as it is after the write. */
export type UpdateOutcome =
  { readonly status: 'committed'; readonly item: Record<string, unknown> } | NotCommitted;

/**
 * One conditional Update (a transaction item's `Update`) that returns the whole item after the write
 * (`ReturnValues: 'ALL_NEW'`), for callers that answer with it; outcomes as for `writeConditionally`.
 */
export async function updateConditionally(
  deps: Deps,
  update: NonNullable<TransactItem['Update']>,
): Promise<UpdateOutcome> {
  const mark = update.TableName === deps.tables.main ? markWith(deps, null) : undefined;
  if (mark) {
    // A transaction returns no item: read it back (strongly consistent) once the update and the mark committed.
    const outcome = await mark.settle(await writeItems(deps, [{ Update: update }, mark.item]), 1);
    if (outcome.status !== 'committed') return outcome;
    const { Item } = await send(deps.db, 'Get', {
      TableName: update.TableName,
      Key: update.Key,
      ConsistentRead: true,
    });
    return { status: 'committed', item: Item ?? {} };
  }
  return sendOne(async () => {
    const { Attributes } = await send(deps.db, 'Update', { ...update, ReturnValues: 'ALL_NEW' });
    return { status: 'committed', item: Attributes ?? {} };
  });
}

/** The outcome of a single conditional Put that asked for the item it replaced (`old`, absent when none was). */
export type PutOutcome =
  { readonly status: 'committed'; readonly old?: Record<string, unknown> } | NotCommitted;

/**
 * One conditional Put (a transaction item's `Put`) of the ledger table that returns the item it replaced
 * (`ReturnValues: 'ALL_OLD'`), for callers that decide by what was there; outcomes as for `writeConditionally`.
 * Not for the main table: a request's `Idempotency-Key` mark would have to join it in a transaction, which
 * returns no item.
 */
export async function putReplacing(deps: Deps, put: NonNullable<TransactItem['Put']>): Promise<PutOutcome> {
  if (put.TableName === deps.tables.main) throw new Error('putReplacing is for the ledger table');
  return sendOne(async () => {
    const { Attributes } = await send(deps.db, 'Put', { ...put, ReturnValues: 'ALL_OLD' });
    return { status: 'committed', ...(Attributes ? { old: Attributes } : {}) };
  });
}

function writeOne(deps: Deps, item: TransactItem): Promise<WriteOutcome> {
  return sendOne(async () => {
    if (item.Put) await send(deps.db, 'Put', item.Put);
    else if (item.Update) await send(deps.db, 'Update', item.Update);
    else if (item.Delete) await send(deps.db, 'Delete', item.Delete);
    // A lone ConditionCheck writes nothing; as a transaction it still reports whether its condition holds.
    else await send(deps.db, 'TransactWrite', { TransactItems: [item] });
    return COMMITTED;
  });
}

/**
 * Runs one single-item write. A plain write that meets a transaction in progress on its item fails with
 * TransactionConflictException (which the SDK does not retry): the same `conflict` as a transaction's.
 */
async function sendOne<Committed>(write: () => Promise<Committed>): Promise<Committed | NotCommitted> {
  try {
    return await write();
  } catch (error) {
    const { ConditionalCheckFailedException, TransactionConflictException, TransactionCanceledException } =
      await dynamoSdk();
    if (error instanceof ConditionalCheckFailedException)
      return { status: 'condition-failed', failedItems: [0], ...(error.Item ? { old: error.Item } : {}) };
    if (error instanceof TransactionConflictException) return { status: 'conflict' };
    if (error instanceof TransactionCanceledException) return outcomeOfCancellation(error);
    throw error;
  }
}

/** Table and key of a transaction item: a transaction may not hold the same item twice. */
export function itemKey(item: TransactItem): string {
  const write = item.Put ?? item.Update ?? item.Delete ?? item.ConditionCheck;
  const key = item.Put
    ? { pk: item.Put.Item?.pk, sk: item.Put.Item?.sk }
    : (write as { Key?: Record<string, unknown> }).Key;
  return `${write?.TableName}|${String(key?.pk)}|${String(key?.sk)}`;
}
