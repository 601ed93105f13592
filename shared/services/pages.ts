import { decodeCursor, encodeCursor, type CursorKey, type CursorScope } from '../domain/pagination/cursor.js';
import { ValidationError } from '../errors.js';
import type { Deps } from '../runtime/deps.js';
import { readListPage, type ListQuery } from '../store/list-page.js';

/*
 * Paging every list in O(page) (issue 14, docs/architecture.md "Lists"). A list is read from where the request's
 * cursor says, or from its start for a page number; `page` is ignored when a cursor is given. A page number
 * skips its predecessors by reading them, so it is bounded: pages whose items start beyond MAX_PAGE_OFFSET are
 * refused (400, use the cursor). The unfiltered records list serves any page number from the chain head
 * instead (shared/services/ledger-queries.ts).
 */

/** The `{ data, pagination }` envelope of every paged list (DESIGN.md, pagination). */
export interface Page<T> {
  data: T[];
  pagination: {
    page: number;
    pageSize: number;
    /** null where not known cheaply (a filtered list before its end). */
    total: number | null;
    totalPages: number | null;
    nextCursor: string | null;
  };
}

export interface PageRequest {
  page: number;
  pageSize: number;
  cursor?: string | undefined;
}

/** The most items a page number may skip (page × pageSize − pageSize); deeper pages need the cursor. */
export const MAX_PAGE_OFFSET = 1000;

/** Items a filtered page may read per page item (the short-page rule): budget = FILTER_READ_FACTOR × pageSize. */
export const FILTER_READ_FACTOR = 4;

/** Where a list read starts: the page it serves, the items before it, the key to start after. */
export interface ListStart {
  page: number;
  offset: number;
  startKey: CursorKey | null;
}

/** The start a request asks for: its cursor's position, or page 1; a page number > 1 is resolved by the caller. */
export function listStart(scope: CursorScope, request: PageRequest): ListStart & { skip: number } {
  if (request.cursor) {
    const position = decodeCursor(scope, request.cursor);
    return { page: position.page, offset: position.offset, startKey: position.key, skip: 0 };
  }
  const skip = (request.page - 1) * request.pageSize;
  if (skip > MAX_PAGE_OFFSET)
    throw new ValidationError('Page too deep', [
      {
        path: 'query.page',
        message: `A page number may skip at most ${MAX_PAGE_OFFSET} items: follow pagination.nextCursor (query parameter cursor) for deeper pages`,
      },
    ]);
  return { page: request.page, offset: skip, startKey: null, skip };
}

/** A page of `total` items (the unfiltered records list, whose total is the chain head). */
export function pageOf<T>(
  data: T[],
  page: number,
  pageSize: number,
  total: number | null,
  nextCursor: string | null = null,
): Page<T> {
  return {
    data,
    pagination: {
      page,
      pageSize,
      total,
      totalPages: total === null ? null : Math.ceil(total / pageSize),
      nextCursor,
    },
  };
}

export interface ListRead<T> {
  items: T[];
  /** The page this read served and the items before it. */
  page: number;
  offset: number;
  nextCursor: string | null;
}

/** Pages a page number may skip on a list with a read budget (each skipped page is one budgeted read). */
export const MAX_FILTERED_PAGE_SKIP = 10;

/**
 * Reads the page a request asks for from `query` (built by a store), each item presented by `present`:
 * O(pageSize) items by cursor. A page number first skips its predecessors: at most MAX_PAGE_OFFSET items, read
 * in chunks. `budget` (items read per request) is for queries with a FilterExpression: their pages may be short,
 * so page N is the N-th page of the cursor walk (the same answer as following nextCursor N − 1 times), and a
 * page number may skip at most MAX_FILTERED_PAGE_SKIP such pages.
 */
export async function readList<T>(
  deps: Deps,
  scope: CursorScope,
  request: PageRequest,
  query: ListQuery,
  present: (item: Record<string, unknown>) => T,
  budget?: number,
): Promise<ListRead<T>> {
  const start = listStart(scope, request);
  let { startKey, offset } = start;
  if (budget !== undefined && start.page - 1 > MAX_FILTERED_PAGE_SKIP && !request.cursor)
    throw new ValidationError('Page too deep', [
      {
        path: 'query.page',
        message: `With more than one filter a page number may skip at most ${MAX_FILTERED_PAGE_SKIP} pages: follow pagination.nextCursor (query parameter cursor) for deeper pages`,
      },
    ]);
  if (start.skip > 0) {
    offset = 0;
    let pages = budget === undefined ? 0 : start.page - 1;
    let skip = budget === undefined ? start.skip : 0;
    while (skip > 0 || pages > 0) {
      const skipped = await readListPage(deps.db, query, {
        pageSize: budget === undefined ? Math.min(skip, 100) : request.pageSize,
        budget,
        startKey,
      });
      offset += skipped.items.length;
      skip -= skipped.items.length;
      pages--;
      startKey = skipped.nextKey;
      if (!startKey) return { items: [], page: start.page, offset, nextCursor: null };
    }
  }
  const read = await readListPage(deps.db, query, { pageSize: request.pageSize, budget, startKey });
  const nextCursor = read.nextKey
    ? encodeCursor(scope, {
        page: start.page + 1,
        offset: offset + read.items.length,
        key: read.nextKey,
      })
    : null;
  return { items: read.items.map(present), page: start.page, offset, nextCursor };
}

/** A read as a `{data, pagination}` page: the total is known once the list ends (or given by the caller). */
export function asPage<T>(read: ListRead<T>, pageSize: number, knownTotal?: number): Page<T> {
  const total = knownTotal ?? (read.nextCursor === null ? read.offset + read.items.length : null);
  return pageOf(read.items, read.page, pageSize, total, read.nextCursor);
}

/** A slice of a plain-array list (certificates, impact assessments, report log) and where the rest starts. */
export interface ArraySlice<T> {
  items: T[];
  /** The cursor of the `Link: <…>; rel="next"` header; null at the end of the list. */
  nextCursor: string | null;
}

/** Up to `limit` items of a plain-array list from the request's cursor (or its start): O(limit). */
export async function readArraySlice<T>(
  deps: Deps,
  scope: CursorScope,
  request: { limit: number; cursor?: string | undefined },
  query: ListQuery,
  present: (item: Record<string, unknown>) => T,
): Promise<ArraySlice<T>> {
  const read = await readList(
    deps,
    { ...scope, query: { ...scope.query, limit: request.limit } },
    { page: 1, pageSize: request.limit, cursor: request.cursor },
    query,
    present,
  );
  return { items: read.items, nextCursor: read.nextCursor };
}
