import type {
  AttributeValue,
  QueryCommand as RawQueryCommand,
  QueryCommandInput as RawQueryInput,
  QueryCommandOutput as RawQueryOutput,
} from '@aws-sdk/client-dynamodb';
import type { LedgerRecord } from '../ledger/record.js';
import { RECORD_FIELDS } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { countAll, dynamoSdk, send } from './dynamo.js';
import { keys, padSequence, SK_PREFIX } from './keys.js';
import { LEDGER_BY_RECORD_ID } from './tables.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

/*
 * Reading the ledger table: a firm's chain head and its record rows. The writes are in ledger-writes.ts, the
 * outbox in ledger-outbox-store.ts. Every record row is read the way verification reads it (rowFromAttributes),
 * so a row an attacker damaged (a number out of the safe range, an attribute type no record has) is returned
 * as it is, for verification, discrepancy, restore and the record endpoints to show, never a read error.
 */

/** Where a firm's chain ends: the `HEAD` item (sequence 0 and no hashes for an empty chain). */
export interface ChainHead {
  sequenceNumber: number;
  chainHash: string | null;
  timestamp: string | null;
}

/** The chain's head once `record` is its last record. */
export function headAt(record: Pick<LedgerRecord, 'sequenceNumber' | 'chainHash' | 'timestamp'>): ChainHead {
  return { sequenceNumber: record.sequenceNumber, chainHash: record.chainHash, timestamp: record.timestamp };
}

export async function readHead(deps: Deps, firmId: string): Promise<ChainHead> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.ledger,
    Key: keys.ledgerHead(firmId),
    ConsistentRead: true,
  });
  if (!Item) return { sequenceNumber: 0, chainHash: null, timestamp: null };
  return {
    sequenceNumber: Item.sequenceNumber as number,
    chainHash: Item.chainHash as string,
    timestamp: Item.timestamp as string,
  };
}

/**
 * The rows of a firm that carry a record id, with their positions (normally one; a tampered ledger may hold
 * the id at another position, or twice). Another firm's rows are never returned.
 */
export async function rowsWithRecordId(
  deps: Deps,
  firmId: string,
  id: string,
): Promise<{ position: number; record: LedgerRecord }[]> {
  const rows = await queryRows(deps, {
    TableName: deps.tables.ledger,
    IndexName: LEDGER_BY_RECORD_ID,
    KeyConditionExpression: 'id = :id',
    ExpressionAttributeValues: { ':id': { S: id } },
  });
  return rows.filter((row) => row.pk === keys.firmPk(firmId) && row.sk.startsWith(SK_PREFIX.record));
}

/** A firm's record by id, or null (also when the id belongs to another firm). */
export async function getRecordById(deps: Deps, firmId: string, id: string): Promise<LedgerRecord | null> {
  return (await rowsWithRecordId(deps, firmId, id))[0]?.record ?? null;
}

export async function getRecordBySequence(
  deps: Deps,
  firmId: string,
  sequenceNumber: number,
): Promise<LedgerRecord | null> {
  const key = keys.ledgerRecord(firmId, sequenceNumber);
  const { GetItemCommand } = await dynamoSdk();
  const { Item } = await deps.db.send(
    new GetItemCommand({
      TableName: deps.tables.ledger,
      Key: { pk: { S: key.pk }, sk: { S: key.sk } },
      ConsistentRead: true,
    }),
  );
  return Item ? rowFromAttributes(Item).record : null;
}

export interface RecordFilter {
  eventType?: string;
  startDate?: string;
  endDate?: string;
  actorId?: string;
  documentHash?: string;
  documentReference?: string;
}

export type SortOrder = 'asc' | 'desc';

/** Records with sequence numbers in [from, to], in the given order. */
export async function queryRecordRange(
  deps: Deps,
  firmId: string,
  from: number,
  to: number,
  order: SortOrder,
): Promise<LedgerRecord[]> {
  return (await queryRowRange(deps, firmId, from, to, order)).map((row) => row.record);
}

/** Rows stored for sequence positions [from, to] with their position (from the sort key), ascending by default. */
export async function queryRowRange(
  deps: Deps,
  firmId: string,
  from: number,
  to: number,
  order: SortOrder = 'asc',
): Promise<{ position: number; record: LedgerRecord }[]> {
  return queryRows(deps, { ...recordRange(deps, firmId, from, to), ScanIndexForward: order === 'asc' });
}

/** The strongly consistent Query of a firm's record rows at positions [from, to]. */
function recordRange(deps: Deps, firmId: string, from: number, to: number) {
  return {
    TableName: deps.tables.ledger,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': { S: keys.firmPk(firmId) },
      ':from': { S: `${SK_PREFIX.record}${padSequence(from)}` },
      ':to': { S: `${SK_PREFIX.record}${padSequence(to)}` },
    },
    ConsistentRead: true,
  };
}

/**
 * Rows for positions [from, to] ascending, read one DynamoDB page at a time until `enough(rows)` holds (the
 * evidence export stops at its byte budget): the read costs what the answer holds, not the whole range.
 */
export async function queryRowRangeUntil(
  deps: Deps,
  firmId: string,
  from: number,
  to: number,
  enough: (rows: readonly { position: number; record: LedgerRecord }[]) => boolean,
): Promise<{ position: number; record: LedgerRecord }[]> {
  return queryRows(deps, recordRange(deps, firmId, from, to), enough);
}

interface Row {
  pk: string;
  sk: string;
  position: number;
  record: LedgerRecord;
}

/** Every record row a low-level query matches, across pages (until `enough`), converted by rowFromAttributes. */
async function queryRows(
  deps: Deps,
  input: RawQueryInput,
  enough: (rows: readonly Row[]) => boolean = () => false,
): Promise<Row[]> {
  const { QueryCommand: RawQueryCommand } = await dynamoSdk();
  const rows: Row[] = [];
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const command = new RawQueryCommand({ ...input, ExclusiveStartKey: startKey });
    const page = await deps.db.send(summariseOutputLog(command));
    for (const item of page.Items ?? []) rows.push(rowFromAttributes(item));
    startKey = page.LastEvaluatedKey;
  } while (startKey && !enough(rows));
  return rows;
}

/**
 * Verification reads every row of a chain, so rows are converted straight from DynamoDB's wire attributes into
 * records (the DocumentClient's generic unmarshalling followed by recordOf cost about a sixth of a run). It
 * reads exactly the 16 record fields and converts as the DocumentClient does (an absent attribute is
 * undefined, binary a Uint8Array, sets Sets), with two deliberate differences, both so that a value reads back
 * as it was hashed and nothing a row holds can crash a verification: every number becomes a JavaScript number
 * (the DocumentClient throws, or returns a BigInt, outside the safe-integer range: a number in a record was a
 * JavaScript number when it was hashed, and DynamoDB keeps its digits), and a map key "__proto__" stays an
 * own property. A value of a type the SDK does not know is kept as the SDK gave it (it cannot match the hash).
 */
function rowFromAttributes(item: Record<string, AttributeValue>): Row {
  const record: Record<string, unknown> = {};
  for (const field of RECORD_FIELDS) {
    const value = item[field];
    record[field] = value === undefined ? undefined : nativeValue(value);
  }
  const sk = item.sk?.S ?? '';
  return {
    pk: item.pk?.S ?? '',
    sk,
    position: Number(sk.slice(SK_PREFIX.record.length)),
    record: record as unknown as LedgerRecord,
  };
}

/** The record a wire row holds, converted as verification reads it (for the indexed records list). */
export const recordOfWireRow = (item: Record<string, AttributeValue>): Record<string, unknown> =>
  rowFromAttributes(item).record as unknown as Record<string, unknown>;

function nativeValue(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return Number(value.N);
  if (value.NULL !== undefined) return null;
  if (value.BOOL !== undefined) return Boolean(value.BOOL);
  if (value.M !== undefined) {
    const map: Record<string, unknown> = {};
    for (const key of Object.keys(value.M)) {
      const native = nativeValue(value.M[key]!);
      if (key === '__proto__')
        Object.defineProperty(map, key, {
          value: native,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else map[key] = native;
    }
    return map;
  }
  if (value.L !== undefined) return value.L.map(nativeValue);
  if (value.B !== undefined) return value.B;
  if (value.SS !== undefined) return new Set(value.SS);
  if (value.NS !== undefined) return new Set(value.NS.map(Number));
  if (value.BS !== undefined) return new Set(value.BS);
  return value;
}

/**
 * The SDK's logger middleware filters every response through the operation schema for its log line even
 * when nothing is logged, walking all 1,000 items of a page; a row page's log line is its item count instead.
 */
function summariseOutputLog(command: RawQueryCommand): RawQueryCommand {
  command.middlewareStack.add(
    (next, context) => (args) => {
      context.dynamoDbDocumentClientOptions = {
        ...context.dynamoDbDocumentClientOptions,
        overrideOutputFilterSensitiveLog: (output: RawQueryOutput) =>
          JSON.stringify({ Count: output.Count, ScannedCount: output.ScannedCount }),
      };
      return next(args);
    },
    { step: 'initialize', name: 'ledgerRowsLogSummary' },
  );
  return command;
}

/** How many record rows the firm's partition holds (rows, not sequence numbers: deleted rows are not counted). */
export async function countRecordRows(deps: Deps, firmId: string): Promise<number> {
  return countAll(deps.db, {
    TableName: deps.tables.ledger,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':rec')}`,
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ...skPrefixValues(':rec', SK_PREFIX.record) },
  });
}
