import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LedgerRecord } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { writeConditionally, type TransactItem } from './conditional-write.js';
import { keys, SK_PREFIX } from './keys.js';
import type { ChainHead } from './ledger-store.js';
import { outboxItem } from './ledger-outbox-store.js';

/**
 * The writes to a firm's chain in the ledger table: committing a record after the head, moving a head that
 * lags its records forward, and putting a row back from its immutable copy.
 */

/** Outcome of one attempt to commit a record. */
export type CommitResult = 'committed' | 'head-moved' | 'head-behind' | { failedItem: number };

/** Positions of the commit's own items; the caller's extra items follow them. */
const HEAD = 0;
const RECORD = 1;
const OWN_ITEMS = 3;

/**
 * Commits a record after `head` in one transaction: the head moves from head.sequenceNumber to the record's
 * (conditional on it not having moved), the record row is created (conditional on the sequence being unused)
 * and an outbox entry is created for the immutable copy. `extra` items commit atomically with the record.
 */
export async function commitRecord(
  deps: Deps,
  head: ChainHead,
  record: LedgerRecord,
  outboxBody: string,
  extra: TransactItem[] = [],
): Promise<CommitResult> {
  const recordItem: TransactItem = {
    Put: {
      TableName: deps.tables.ledger,
      Item: { ...keys.ledgerRecord(record.firmId, record.sequenceNumber), ...record },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
  const outcome = await writeConditionally(deps, [
    headItem(deps, record, head),
    recordItem,
    outboxItem(deps, record, outboxBody),
    ...extra,
  ]);
  // A concurrent transaction on the same items: try again on a fresh head.
  if (outcome.status === 'conflict') return 'head-moved';
  if (outcome.status === 'committed') return 'committed';
  const failed = outcome.failedItems;
  // The head matched but the sequence is taken: the head item is behind the records (lost or rolled back).
  if (!failed.includes(HEAD) && failed.includes(RECORD)) return 'head-behind';
  // Contention on the head: try again on a fresh head.
  if (failed.some((index) => index < OWN_ITEMS)) return 'head-moved';
  return { failedItem: failed[0]! - OWN_ITEMS };
}

/**
 * Moves a head that is behind the records forward to the highest record row, conditional on the head
 * still being what the caller read. It only ever moves forward to a record that exists.
 */
export async function advanceHeadToLastRecord(deps: Deps, firmId: string, seen: ChainHead): Promise<void> {
  const { Items = [] } = await deps.db.send(
    new QueryCommand({
      TableName: deps.tables.ledger,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :rec)',
      ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ':rec': SK_PREFIX.record },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const last = Items[0] as LedgerRecord | undefined;
  if (!last || last.sequenceNumber <= seen.sequenceNumber) return;
  // Any outcome will do: a failed condition means another writer moved the head meanwhile.
  await writeConditionally(deps, [headItem(deps, { ...last, firmId }, seen)]);
}

/** The head's move from `from` (conditional on it still being there) to `to`. */
function headItem(
  deps: Deps,
  to: Pick<LedgerRecord, 'firmId' | 'sequenceNumber' | 'chainHash' | 'timestamp'>,
  from: ChainHead,
): TransactItem {
  return {
    Put: {
      TableName: deps.tables.ledger,
      Item: {
        ...keys.ledgerHead(to.firmId),
        sequenceNumber: to.sequenceNumber,
        chainHash: to.chainHash,
        timestamp: to.timestamp,
      },
      ...(from.sequenceNumber === 0
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: 'sequenceNumber = :expected',
            ExpressionAttributeValues: { ':expected': from.sequenceNumber },
          }),
    },
  };
}

/** The write that puts a record row back exactly as given (restore from the immutable copy). */
export function restoreRowItem(deps: Deps, record: LedgerRecord): TransactItem {
  return {
    Put: {
      TableName: deps.tables.ledger,
      Item: { ...keys.ledgerRecord(record.firmId, record.sequenceNumber), ...record },
    },
  };
}
