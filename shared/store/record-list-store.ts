import type { LedgerRecord } from '../ledger/record.js';
import { recordOf } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { SK_PREFIX, keys } from './keys.js';
import { recordOfWireRow, type RecordFilter, type SortOrder } from './ledger-store.js';
import type { KeyBound, ListQuery } from './list-page.js';
import { recordIndexKey } from './record-index.js';
import { LEDGER_RECORD_INDEXES } from './tables.js';

/*
 * The filtered records list (GET /v1/ledger/records with any filter), read from one of the record indexes
 * (issue 14). The rule for filters (docs/architecture.md "Lists"): the index of the first equality filter given
 * in the order documentHash, documentReference, actorId, eventType (most selective first), or the by-time index
 * for a date range alone; startDate/endDate are always a key condition on the index's sort key; the other
 * equality filters are a FilterExpression, whose page may come back short (bounded read budget).
 */

/** The equality filters, most selective first: the first one given picks the index. */
const EQUALITY_FILTERS = ['documentHash', 'documentReference', 'actorId', 'eventType'] as const;

export interface RecordListQuery {
  query: ListQuery;
  /** Whether other equality filters remain as a FilterExpression (pages may be short). */
  postFiltered: boolean;
}

export function recordListQuery(
  deps: Deps,
  firmId: string,
  filter: RecordFilter,
  order: SortOrder,
): RecordListQuery {
  const lead = EQUALITY_FILTERS.find((name) => filter[name] !== undefined);
  const index = lead ? LEDGER_RECORD_INDEXES[lead] : LEDGER_RECORD_INDEXES.byTime;
  const partition = lead ? recordIndexKey[lead](firmId, filter[lead]!) : recordIndexKey.byTime(firmId);
  // recTs is `<timestamp>#<seq>`: every row at or after startDate sorts at or after it, every row up to
  // endDate before `<endDate>#~`.
  const low = filter.startDate ?? '0';
  const high = `${filter.endDate ?? '9'}#~`;
  const names: Record<string, string> = { '#ipk': index.partitionKey, '#isk': index.sortKey };
  const values: Record<string, unknown> = { ':ipk': partition, ':low': low, ':high': high };
  const conditions: string[] = [];
  for (const name of EQUALITY_FILTERS) {
    if (name === lead || filter[name] === undefined) continue;
    values[`:${name}`] = filter[name];
    if (name === 'documentReference') {
      names['#meta'] = 'documentMetadata';
      names['#ref'] = 'documentReference';
      conditions.push('#meta.#ref = :documentReference');
    } else {
      names[`#${name}`] = name;
      conditions.push(`#${name} = :${name}`);
    }
  }
  const bounds: Record<string, KeyBound> = {
    pk: { equals: keys.firmPk(firmId) },
    sk: { prefix: SK_PREFIX.record },
    [index.partitionKey]: { equals: partition },
    [index.sortKey]: { between: [low, high] },
  };
  return {
    query: {
      input: {
        TableName: deps.tables.ledger,
        IndexName: index.indexName,
        KeyConditionExpression: '#ipk = :ipk AND #isk BETWEEN :low AND :high',
        ...(conditions.length > 0 ? { FilterExpression: conditions.join(' AND ') } : {}),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: order === 'asc',
      },
      keyBounds: bounds,
      raw: recordOfWireRow,
    },
    postFiltered: conditions.length > 0,
  };
}

/** A record row read from an index, as the record it holds (index and key attributes dropped). */
export const recordOfRow = (item: Record<string, unknown>): LedgerRecord =>
  recordOf(item as unknown as LedgerRecord);
