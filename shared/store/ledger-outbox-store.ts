import type { LedgerRecord } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { writeConditionally, type TransactItem } from './conditional-write.js';
import { send } from './dynamo.js';
import { keys, padSequence } from './keys.js';
import { LEDGER_PENDING_ARCHIVE } from './tables.js';

/**
 * The ledger's outbox: one `OUTBOX#<seq>` item per committed record whose immutable copy is not yet confirmed,
 * holding the copy's exact bytes. It is written in the record's own transaction and found again through the
 * `pendingArchive` index by the outbox sweep.
 */
export interface OutboxEntry {
  firmId: string;
  sequenceNumber: number;
  /** Canonical JSON of the record: the exact bytes of its immutable copy. */
  body: string;
  pendingSince: string;
}

/**
 * The `pendingArchive` index's partition key is sharded: `PENDING#<0..15>`, by firm and sequence number, so
 * neither one busy firm nor the whole platform writes every outbox entry under a single key (a DynamoDB
 * partition takes ~1,000 WCU/s; each append writes and deletes one entry). The sweep reads every shard. Entries
 * written before sharding carry plain `PENDING` and are read too, until none is left.
 */
export const OUTBOX_SHARDS = 16;
const LEGACY_PENDING = 'PENDING';

/** The index key of a firm's entry at `sequenceNumber`: consecutive records of a firm go to consecutive shards. */
export function outboxShard(firmId: string, sequenceNumber: number): string {
  let hash = 0;
  for (let i = 0; i < firmId.length; i++) hash = (hash * 31 + firmId.charCodeAt(i)) >>> 0;
  return `${LEGACY_PENDING}#${(hash + sequenceNumber) % OUTBOX_SHARDS}`;
}

const SHARD_KEYS = [
  LEGACY_PENDING,
  ...Array.from({ length: OUTBOX_SHARDS }, (_, shard) => `${LEGACY_PENDING}#${shard}`),
];

/** The outbox entry written with a record (part of its commit transaction). */
export function outboxItem(deps: Deps, record: LedgerRecord, body: string): TransactItem {
  return {
    Put: {
      TableName: deps.tables.ledger,
      Item: {
        ...keys.ledgerOutbox(record.firmId, record.sequenceNumber),
        firmId: record.firmId,
        sequenceNumber: record.sequenceNumber,
        body,
        pendingArchive: outboxShard(record.firmId, record.sequenceNumber),
        pendingSince: `${record.timestamp}#${record.firmId}#${padSequence(record.sequenceNumber)}`,
      },
    },
  };
}

export async function deleteOutbox(deps: Deps, firmId: string, sequenceNumber: number): Promise<void> {
  await send(deps.db, 'Delete', {
    TableName: deps.tables.ledger,
    Key: keys.ledgerOutbox(firmId, sequenceNumber),
  });
}

/**
 * Clears the outbox entries of records whose copies are done, in transactions of up to 100 deletes (a delete of
 * an entry already gone is fine): one call for a batch of records instead of one per record. A transaction that
 * meets another on the same entries (the sweep clearing them too) is followed by single deletes.
 */
export async function clearOutboxes(
  deps: Deps,
  firmId: string,
  sequenceNumbers: readonly number[],
): Promise<void> {
  for (let from = 0; from < sequenceNumbers.length; from += 100) {
    const chunk = sequenceNumbers.slice(from, from + 100);
    const outcome = await writeConditionally(
      deps,
      chunk.map((sequenceNumber) => ({
        Delete: { TableName: deps.tables.ledger, Key: keys.ledgerOutbox(firmId, sequenceNumber) },
      })),
    );
    if (outcome.status !== 'committed')
      await Promise.all(chunk.map((sequenceNumber) => deleteOutbox(deps, firmId, sequenceNumber)));
  }
}

/** Outbox entries pending since before `olderThan` (ISO time), oldest first, across all firms and shards. */
export async function listPendingOutbox(
  deps: Deps,
  olderThan: string,
  limit: number,
): Promise<OutboxEntry[]> {
  const shards = await Promise.all(
    SHARD_KEYS.map(async (shard) => {
      const { Items = [] } = await send(deps.db, 'Query', {
        TableName: deps.tables.ledger,
        IndexName: LEDGER_PENDING_ARCHIVE,
        KeyConditionExpression: 'pendingArchive = :p AND pendingSince < :t',
        ExpressionAttributeValues: { ':p': shard, ':t': olderThan },
        Limit: limit,
      });
      return Items;
    }),
  );
  return shards
    .flat()
    .map((i) => ({
      firmId: i.firmId as string,
      sequenceNumber: i.sequenceNumber as number,
      body: i.body as string,
      pendingSince: i.pendingSince as string,
    }))
    .sort((a, b) => (a.pendingSince < b.pendingSince ? -1 : a.pendingSince > b.pendingSince ? 1 : 0))
    .slice(0, limit);
}

export async function getOutbox(
  deps: Deps,
  firmId: string,
  sequenceNumber: number,
): Promise<OutboxEntry | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.ledger,
    Key: keys.ledgerOutbox(firmId, sequenceNumber),
    ConsistentRead: true,
  });
  return Item
    ? { firmId, sequenceNumber, body: Item.body as string, pendingSince: Item.pendingSince as string }
    : null;
}
