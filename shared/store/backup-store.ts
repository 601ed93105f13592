/**
 * Backup reconciliation state (issue 14, part 2), in the main table:
 * - `FIRM#<firmId>`, `BACKUP#RECONCILED`: what the last reconciliation of the firm found: the head it
 *   reconciled up to, the sequence numbers at or below it without a database row (`missingRows`) or without an
 *   immutable copy (`missingCopies`), each a number set capped at MISSING_CAP (the rest only counted), when.
 *   A restore that reinserts a row then removes its number from `missingRows`.
 * - `BACKUPRECONCILE`, `FIRM#<firmId>`: the registry the scheduled reconciliation walks (one item per firm,
 *   holding its last `reconciledAt`), written at onboarding and by `ledgerctl backfill counters`.
 */
import type { Deps } from '../runtime/deps.js';
import type { TransactItem } from './conditional-write.js';
import { writeConditionally, writeNew } from './conditional-write.js';
import { queryAll, send } from './dynamo.js';
import { keys } from './keys.js';

/** At most this many missing sequence numbers are kept by number; more are counted only. */
export const MISSING_CAP = 1000;

const REGISTRY_PK = 'BACKUPRECONCILE';
const registryKey = (firmId: string) => ({ pk: REGISTRY_PK, sk: `FIRM#${firmId}` });
const resultKey = (firmId: string) => ({ pk: keys.firmPk(firmId), sk: 'BACKUP#RECONCILED' });

export interface Reconciliation {
  reconciledAt: string;
  /** The head's sequence number when the reconciliation started: it checked 1..headSequence. */
  headSequence: number;
  missingRows: number[];
  missingRowsBeyondCap: number;
  missingCopies: number[];
  missingCopiesBeyondCap: number;
}

/** The firm's entry in the reconciliation registry (for onboarding's transaction; absent before). */
export function registryPutItem(deps: Deps, firmId: string): TransactItem {
  return {
    Put: {
      TableName: deps.tables.main,
      Item: { ...registryKey(firmId), firmId, reconciledAt: null },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Registers a firm for reconciliation unless it already is (backfill of firms onboarded before). */
export async function registerFirm(deps: Deps, firmId: string): Promise<void> {
  await send(deps.db, 'Update', {
    TableName: deps.tables.main,
    Key: registryKey(firmId),
    UpdateExpression: 'SET firmId = :firm, reconciledAt = if_not_exists(reconciledAt, :null)',
    ExpressionAttributeValues: { ':firm': firmId, ':null': null },
  });
}

/** Every registered firm with its last reconciliation time (null: never), oldest first. */
export async function registeredFirms(
  deps: Deps,
): Promise<{ firmId: string; reconciledAt: string | null }[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': REGISTRY_PK },
  });
  return items
    .map((item) => ({
      firmId: item.firmId as string,
      reconciledAt: (item.reconciledAt as string | null) ?? null,
    }))
    .sort((a, b) => (a.reconciledAt ?? '').localeCompare(b.reconciledAt ?? ''));
}

export async function getReconciliation(deps: Deps, firmId: string): Promise<Reconciliation | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: resultKey(firmId),
    ConsistentRead: true,
  });
  if (!Item || typeof Item.reconciledAt !== 'string') return null;
  const numbers = (value: unknown) => [...((value as Set<number> | undefined) ?? [])].sort((a, b) => a - b);
  return {
    reconciledAt: Item.reconciledAt,
    headSequence: Number(Item.headSequence),
    missingRows: numbers(Item.missingRows),
    missingRowsBeyondCap: Number(Item.missingRowsBeyondCap ?? 0),
    missingCopies: numbers(Item.missingCopies),
    missingCopiesBeyondCap: Number(Item.missingCopiesBeyondCap ?? 0),
  };
}

/** Stores a reconciliation's findings and stamps the firm's registry entry, in one transaction. */
export async function saveReconciliation(deps: Deps, firmId: string, found: Reconciliation): Promise<void> {
  const { missingRows, missingCopies, ...rest } = found;
  await writeNew(
    deps,
    [
      {
        Put: {
          TableName: deps.tables.main,
          Item: {
            ...resultKey(firmId),
            ...rest,
            // A number set cannot be empty: an absent attribute is the empty set.
            ...(missingRows.length ? { missingRows: new Set(missingRows) } : {}),
            ...(missingCopies.length ? { missingCopies: new Set(missingCopies) } : {}),
          },
        },
      },
      {
        Put: {
          TableName: deps.tables.main,
          Item: { ...registryKey(firmId), firmId, reconciledAt: found.reconciledAt },
        },
      },
    ],
    `the backup reconciliation of firm ${firmId}`,
  );
}

/**
 * After a restore reinserted a row: it is no longer missing. Idempotent (deleting a number absent from the set
 * changes nothing); nothing is written for a firm never reconciled. (Not in the restore's transaction: a ledger
 * append's extras are kept as JSON until committed, and a number set has no JSON form.)
 */
export async function markRowRestored(deps: Deps, firmId: string, sequenceNumber: number): Promise<void> {
  const outcome = await writeConditionally(deps, [
    {
      Update: {
        TableName: deps.tables.main,
        Key: resultKey(firmId),
        UpdateExpression: 'DELETE missingRows :restored',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':restored': new Set([sequenceNumber]) },
      },
    },
  ]);
  if (outcome.status === 'conflict')
    throw new Error(`Marking row ${sequenceNumber} restored met a transaction`);
}
