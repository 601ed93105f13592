import { NotFoundError } from '../errors.js';
import type { LedgerRecord } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import {
  getRecordById,
  queryFilteredRecords,
  queryRecordRange,
  readHead,
  type RecordFilter,
  type SortOrder,
} from '../store/ledger-store.js';
import { pageOf, type Page } from './pages.js';

export interface ListRecordsInput extends RecordFilter {
  page: number;
  pageSize: number;
  order: SortOrder;
}

/**
 * Lists records. Without filters a page is a direct key-range read by sequence number and the total is the
 * chain length. With filters the firm's partition is read with DynamoDB filter expressions and counted.
 */
export async function listRecords(
  deps: Deps,
  firmId: string,
  input: ListRecordsInput,
): Promise<Page<LedgerRecord>> {
  const { page, pageSize, order, ...filter } = input;
  const filtered = Object.values(filter).some((v) => v !== undefined);
  if (!filtered) {
    const { sequenceNumber: total } = await readHead(deps, firmId);
    const skip = (page - 1) * pageSize;
    if (skip >= total) return pageOf([], page, pageSize, total);
    const [from, to] =
      order === 'desc'
        ? [Math.max(1, total - skip - pageSize + 1), total - skip]
        : [skip + 1, Math.min(total, skip + pageSize)];
    return pageOf(await queryRecordRange(deps, firmId, from, to, order), page, pageSize, total);
  }
  const matches = await queryFilteredRecords(deps, firmId, filter, order);
  const start = (page - 1) * pageSize;
  return pageOf(matches.slice(start, start + pageSize), page, pageSize, matches.length);
}

export async function findRecord(deps: Deps, firmId: string, id: string): Promise<LedgerRecord> {
  const record = await getRecordById(deps, firmId, id);
  if (!record) throw new NotFoundError('Ledger record not found');
  return record;
}
