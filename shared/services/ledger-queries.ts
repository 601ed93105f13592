import { encodeCursor, type CursorScope } from '../domain/pagination/cursor.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import type { LedgerRecord } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { padSequence, SK_PREFIX } from '../store/keys.js';
import {
  getRecordById,
  queryRecordRange,
  readHead,
  type RecordFilter,
  type SortOrder,
} from '../store/ledger-store.js';
import { recordListQuery, recordOfRow } from '../store/record-list-store.js';
import { chainHeadMissing } from './integrity/ledger-damage.js';
import { asPage, FILTER_READ_FACTOR, listStart, pageOf, readList, type Page } from './pages.js';

export interface ListRecordsInput extends RecordFilter {
  page: number;
  pageSize: number;
  cursor?: string | undefined;
  order: SortOrder;
}

/**
 * Lists records in O(page) (issue 14). Without filters a page is a direct key-range read by sequence number,
 * any page number is served, and the total is the chain length (the head). With filters a page is read from
 * a record index (shared/store/record-list-store.ts): total null until the last page, page numbers bounded,
 * and with more than one equality filter a page may be short (bounded read budget), with a nextCursor.
 */
export async function listRecords(
  deps: Deps,
  firmId: string,
  input: ListRecordsInput,
): Promise<Page<LedgerRecord>> {
  const { page, pageSize, order, cursor, ...filter } = input;
  const scope: CursorScope = { firmId, query: { list: 'records', ...filter, order, pageSize } };
  const filtered = Object.values(filter).some((v) => v !== undefined);
  if (!filtered) return unfilteredPage(deps, scope, { page, pageSize, cursor }, order);
  const { query, postFiltered } = recordListQuery(deps, firmId, filter, order);
  const read = await readList(
    deps,
    scope,
    { page, pageSize, cursor },
    query,
    recordOfRow,
    postFiltered ? FILTER_READ_FACTOR * pageSize : undefined,
  );
  return asPage(read, pageSize);
}

/**
 * The unfiltered list: positions by sequence number from the head, so any page costs one range read. Its
 * cursor holds the sequence number the previous page ended on.
 */
async function unfilteredPage(
  deps: Deps,
  scope: CursorScope,
  request: { page: number; pageSize: number; cursor: string | undefined },
  order: SortOrder,
): Promise<Page<LedgerRecord>> {
  const { pageSize } = request;
  const { sequenceNumber: total } = await readHead(deps, scope.firmId);
  // A ledger whose head is gone is not an empty one (issue 32): never answered as 0 records without a word.
  if (total === 0 && (await chainHeadMissing(deps, scope.firmId, { headSequence: 0, copies: true })))
    throw new ConflictError(DAMAGED_LEDGER);
  let page = request.page;
  let from: number;
  let to: number;
  if (request.cursor) {
    const start = listStart(scope, request);
    const sk = start.startKey?.sk;
    const after = typeof sk === 'string' && sk.startsWith(SK_PREFIX.record) ? Number(sk.slice(4)) : NaN;
    if (Object.keys(start.startKey ?? {}).length !== 1 || !Number.isSafeInteger(after) || after < 1)
      throw new ValidationError('Invalid cursor', [
        {
          path: 'query.cursor',
          message: 'The cursor does not point into this list: use nextCursor as it was returned',
        },
      ]);
    page = start.page;
    [from, to] =
      order === 'desc'
        ? [Math.max(1, after - pageSize), after - 1]
        : [after + 1, Math.min(total, after + pageSize)];
  } else {
    const skip = (page - 1) * pageSize;
    if (skip >= total) return pageOf([], page, pageSize, total);
    [from, to] =
      order === 'desc'
        ? [Math.max(1, total - skip - pageSize + 1), total - skip]
        : [skip + 1, Math.min(total, skip + pageSize)];
  }
  if (from > to) return pageOf([], page, pageSize, total);
  const records = await queryRecordRange(deps, scope.firmId, from, to, order);
  // Every row of a page the head says exists is gone: the ledger lost its rows (some missing rows show as gaps).
  if (records.length === 0) throw new ConflictError(DAMAGED_LEDGER);
  const last = order === 'desc' ? from : to;
  const more = order === 'desc' ? from > 1 : to < total;
  const nextCursor = more
    ? encodeCursor(scope, {
        page: page + 1,
        offset: order === 'desc' ? total - from + 1 : to,
        key: { sk: `${SK_PREFIX.record}${padSequence(last)}` },
      })
    : null;
  return pageOf(records, page, pageSize, total, nextCursor);
}

const DAMAGED_LEDGER =
  "The ledger's records are missing from the database although its chain head, counters or write-once copies say they exist: the ledger was damaged outside the service. GET /v1/firm/me/backup-status shows what is flagged; the records are restored from their immutable copies (docs/operations.md).";

export async function findRecord(deps: Deps, firmId: string, id: string): Promise<LedgerRecord> {
  const record = await getRecordById(deps, firmId, id);
  if (!record) throw new NotFoundError('Ledger record not found');
  return record;
}
