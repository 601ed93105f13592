import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { StoredRow } from '../domain/integrity/tamper.js';
import { RECORD_FIELDS, type LedgerRecord } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { writeConditionally, type TransactItem } from './conditional-write.js';
import { dynamoSdk, send } from './dynamo.js';
import { keys, padSequence, SK_PREFIX } from './keys.js';
import { recordOfWireRow } from './ledger-store.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

/*
 * The tamper watch's items (docs/architecture.md §6c): one flag per record row found changed or removed outside
 * the service, `FIRM#<firmId>` / `TAMPER#<12-digit seq>` in the main table, created once (conditional on its
 * absence, so a replayed stream record flags nothing twice) and deleted by restore once the row is repaired.
 * Reading a firm's standing flags is one Query of at most `limit + 1` items, whatever the damage.
 */

const TAMPER_PREFIX = 'TAMPER#';

export interface TamperFlag {
  firmId: string;
  sequenceNumber: number;
  change: 'REMOVED' | 'MODIFIED';
  fieldsChanged: string[];
  detectedAt: string;
  /** The TAMPERING_DETECTED record written with the flag; null when the chain had no head to append to. */
  detectionRecordId: string | null;
}

const flagKey = (firmId: string, sequenceNumber: number) => ({
  pk: keys.firmPk(firmId),
  sk: `${TAMPER_PREFIX}${padSequence(sequenceNumber)}`,
});

/** The flag's creation, conditional on no flag standing for that row (for a transaction or on its own). */
export function tamperFlagItem(deps: Deps, flag: TamperFlag): TransactItem {
  return {
    Put: {
      TableName: deps.tables.main,
      Item: { ...flagKey(flag.firmId, flag.sequenceNumber), ...flag },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * Creates the flag, in one transaction with `conditions`; false when one already stands for that row or a
 * condition failed (nothing is written).
 */
export async function putTamperFlag(
  deps: Deps,
  flag: TamperFlag,
  conditions: readonly TransactItem[] = [],
): Promise<boolean> {
  const outcome = await writeConditionally(deps, [tamperFlagItem(deps, flag), ...conditions]);
  return outcome.status === 'committed';
}

/** Removes the row's flag (restore, once the row matches its copy again); idempotent. */
export async function clearTamperFlag(deps: Deps, firmId: string, sequenceNumber: number): Promise<void> {
  await send(deps.db, 'Delete', { TableName: deps.tables.main, Key: flagKey(firmId, sequenceNumber) });
}

/** The firm's standing flags, lowest sequence number first: at most `limit`, and whether there are more. */
export async function standingTamperFlags(
  deps: Deps,
  firmId: string,
  limit: number,
): Promise<{ flags: TamperFlag[]; more: boolean }> {
  const { Items = [] } = await send(deps.db, 'Query', {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':tamper')}`,
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ...skPrefixValues(':tamper', TAMPER_PREFIX) },
    ConsistentRead: true,
    Limit: limit + 1,
  });
  const flags = Items.slice(0, limit).map(({ pk: _pk, sk: _sk, ...flag }) => flag as unknown as TamperFlag);
  return { flags, more: Items.length > limit };
}

/** Whether the firm's partition of the ledger table holds any record row (one key read). */
export async function anyRecordRow(deps: Deps, firmId: string): Promise<boolean> {
  const { Items = [] } = await send(deps.db, 'Query', {
    TableName: deps.tables.ledger,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':rec')}`,
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ...skPrefixValues(':rec', SK_PREFIX.record) },
    ProjectionExpression: 'sk',
    Limit: 1,
  });
  return Items.length > 0;
}

/**
 * A record row as it stands (strongly consistent): its record fields, read as verification reads them, and
 * every other attribute but the keys (a string as is; any other type tagged, so it never equals the string an
 * index attribute must be). Null when the row is gone.
 */
export async function getStoredRow(
  deps: Deps,
  firmId: string,
  sequenceNumber: number,
): Promise<StoredRow | null> {
  const key = keys.ledgerRecord(firmId, sequenceNumber);
  const { GetItemCommand } = await dynamoSdk();
  const { Item } = await deps.db.send(
    new GetItemCommand({
      TableName: deps.tables.ledger,
      Key: { pk: { S: key.pk }, sk: { S: key.sk } },
      ConsistentRead: true,
    }),
  );
  if (!Item) return null;
  const storage: Record<string, unknown> = {};
  const recordFields = new Set<string>(RECORD_FIELDS);
  for (const [name, value] of Object.entries(Item as Record<string, AttributeValue>)) {
    if (name === 'pk' || name === 'sk' || recordFields.has(name)) continue;
    storage[name] = value.S ?? `<${Object.keys(value)[0] ?? 'unknown'} attribute>`;
  }
  return { record: recordOfWireRow(Item) as unknown as LedgerRecord, storage };
}
