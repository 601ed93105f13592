/** The `{ data, pagination }` envelope of every page-numbered list (DESIGN.md, pagination). */
export interface Page<T> {
  data: T[];
  pagination: { page: number; pageSize: number; total: number; totalPages: number };
}

/** A page of `total` items, `data` being the items on page `page`. */
export function pageOf<T>(data: T[], page: number, pageSize: number, total: number): Page<T> {
  return { data, pagination: { page, pageSize, total, totalPages: Math.ceil(total / pageSize) } };
}

/** Page `page` of a list already read whole, each item presented by `present`. */
export function slicePage<T, U>(
  all: readonly T[],
  query: { page: number; pageSize: number },
  present: (item: T) => U,
): Page<U> {
  const start = (query.page - 1) * query.pageSize;
  return pageOf(
    all.slice(start, start + query.pageSize).map(present),
    query.page,
    query.pageSize,
    all.length,
  );
}
