import type { LedgerRecord } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { isAdditive, mergeAdditive } from './additive-updates.js';
import { itemKey, writeConditionally, type TransactItem } from './conditional-write.js';
import { send } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import type { ChainHead } from './ledger-store.js';
import { outboxItem } from './ledger-outbox-store.js';
import { recordRow } from './record-index.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

/**
 * The writes to a firm's chain in the ledger table: committing a batch of records after the head, moving a
 * head that lags its records forward, and putting a row back from its immutable copy.
 */

/** A sealed record ready to commit, with the writes that go with it. */
export interface SealedAppend {
  record: LedgerRecord;
  /** Canonical JSON of the record: the exact bytes of its immutable copy, kept in the outbox entry. */
  body: string;
  /** For an append that waits as an intent: the write taking the intent away (conditional on it still waiting). */
  intentResult?: TransactItem;
  /** Writes that commit atomically with the record, their conditions included. */
  extras: TransactItem[];
}

/** What became of a batch. Nothing is written unless it is `committed`. */
export type BatchOutcome =
  | { kind: 'committed' }
  /** Another writer moved the chain head since it was read. */
  | { kind: 'head-moved' }
  /** The head held, but a record position is taken: the head item is behind the records. */
  | { kind: 'head-behind' }
  /** The append at `index` failed its own condition, on its `failedItem`-th extra write. */
  | { kind: 'append-failed'; index: number; failedItem: number }
  /** The append at `index` was withdrawn by its asker (it gave up waiting). */
  | { kind: 'withdrawn'; index: number }
  /** The sequencer lease released with the batch is no longer this holder's (it ran out and was taken). */
  | { kind: 'lease-lost' }
  /** A concurrent transaction touched the same items; nothing failed its condition. */
  | { kind: 'conflict' };

type Role =
  | ({ index: number } & ({ role: 'record' | 'outbox' | 'intent' } | { role: 'extra'; extra: number }))
  | { role: 'lease' };

/**
 * Commits consecutive records after `head` in one transaction: the head moves to the last record (conditional
 * on it not having moved), every record row is created (conditional on its sequence being unused) with its
 * outbox entry, every waiting intent is taken away (its record is its result), and every append's extra writes commit with it. The
 * conditions make sequence numbers unique, gapless and strictly increasing whatever else runs. `release`, when
 * given, gives the sequencer lease up in the same transaction (sequencer-lease-store.ts, leaseReleaseItem).
 */
export async function commitBatch(
  deps: Deps,
  head: ChainHead,
  sealed: readonly SealedAppend[],
  release?: TransactItem,
): Promise<BatchOutcome> {
  const last = sealed[sealed.length - 1]!.record;
  const items: TransactItem[] = [headItem(deps, last, head)];
  const roles: (Role | null)[] = [null];
  // Additive updates of one item by several appends (counter deltas) become one update, at the first one's place.
  const additive = new Map<string, { at: number; items: TransactItem[] }>();
  sealed.forEach((append, index) => {
    items.push(recordItem(deps, append.record), outboxItem(deps, append.record, append.body));
    roles.push({ index, role: 'record' }, { index, role: 'outbox' });
    if (append.intentResult) {
      items.push(append.intentResult);
      roles.push({ index, role: 'intent' });
    }
    append.extras.forEach((item, extra) => {
      if (isAdditive(item)) {
        const key = itemKey(item);
        const same = additive.get(key);
        if (same) return void same.items.push(item);
        additive.set(key, { at: items.length, items: [item] });
      }
      items.push(item);
      roles.push({ index, role: 'extra', extra });
    });
  });
  for (const { at, items: same } of additive.values()) items[at] = mergeAdditive(same);
  if (release) {
    items.push(release);
    roles.push({ role: 'lease' });
  }
  const outcome = await writeConditionally(deps, items);
  if (outcome.status === 'committed') return { kind: 'committed' };
  if (outcome.status === 'conflict') return { kind: 'conflict' };
  if (outcome.failedItems.includes(0)) return { kind: 'head-moved' };
  const failed = outcome.failedItems.map((i) => roles[i]!);
  if (failed.some((r) => r.role === 'record')) return { kind: 'head-behind' };
  const first = failed.find((r) => r.role !== 'lease');
  if (!first) return { kind: 'lease-lost' };
  if (first.role === 'extra') return { kind: 'append-failed', index: first.index, failedItem: first.extra };
  return { kind: 'withdrawn', index: first.index };
}

/**
 * Moves a head that is behind the records forward to the highest record row, conditional on the head
 * still being what the caller read. It only ever moves forward to a record that exists.
 */
export async function advanceHeadToLastRecord(deps: Deps, firmId: string, seen: ChainHead): Promise<void> {
  const { Items = [] } = await send(deps.db, 'Query', {
    TableName: deps.tables.ledger,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':rec')}`,
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ...skPrefixValues(':rec', SK_PREFIX.record) },
    ScanIndexForward: false,
    Limit: 1,
    ConsistentRead: true,
  });
  const last = Items[0] as LedgerRecord | undefined;
  if (!last || last.sequenceNumber <= seen.sequenceNumber) return;
  // Any outcome will do: a failed condition means another writer moved the head meanwhile.
  await writeConditionally(deps, [headItem(deps, { ...last, firmId }, seen)]);
}

/** A record's row, created only if its position is free (the bulk seed, shared/services/seed, puts its Item). */
export function recordItem(deps: Deps, record: LedgerRecord): TransactItem {
  return {
    Put: {
      TableName: deps.tables.ledger,
      Item: recordRow(record),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The head's move from `from` (conditional on it still being there) to `to`. */
export function headItem(
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
      Item: recordRow(record),
    },
  };
}
