/**
 * Which changes of a table's DynamoDB stream reach a `stream` worker (shared/workers/table.ts), described once:
 * lib/workers.ts turns each filter into the event source mapping's filter criteria, and the embedded stack's
 * stream poller (shared/adapters/local/stream-poller.ts) applies the same filters before it invokes the worker,
 * so a change AWS would filter out never reaches the handler locally either.
 */

export type StreamEventName = 'INSERT' | 'MODIFY' | 'REMOVE';

/** One filter: the change's kind and its item's sort key (a prefix, or one exact value). A record passes any. */
export interface StreamFilter {
  eventNames: readonly StreamEventName[];
  sortKey: { prefix: string } | { equals: string };
}

/** What a filter looks at in a stream record (the Lambda event's record, or a GetRecords record). */
export interface FilterableStreamRecord {
  eventName?: string;
  dynamodb?: { Keys?: Record<string, { S?: string } | undefined> };
}

/**
 * The Lambda event filter pattern of a filter (EventBridge pattern syntax, matched against the stream record):
 * `{"eventName": [...], "dynamodb": {"Keys": {"<sortKey>": {"S": [{"prefix": "REC#"}]}}}}`.
 */
export function streamFilterPattern(filter: StreamFilter, sortKeyAttribute: string): Record<string, unknown> {
  const value = 'prefix' in filter.sortKey ? { prefix: filter.sortKey.prefix } : filter.sortKey.equals;
  return {
    eventName: [...filter.eventNames],
    dynamodb: { Keys: { [sortKeyAttribute]: { S: [value] } } },
  };
}

/** Whether a stream record passes any of the filters, exactly as the patterns above match in AWS. */
export function passesStreamFilters(
  filters: readonly StreamFilter[],
  record: FilterableStreamRecord,
  sortKeyAttribute: string,
): boolean {
  const sortKey = record.dynamodb?.Keys?.[sortKeyAttribute]?.S;
  if (sortKey === undefined) return false;
  return filters.some(
    (filter) =>
      (filter.eventNames as readonly string[]).includes(record.eventName ?? '') &&
      ('prefix' in filter.sortKey
        ? sortKey.startsWith(filter.sortKey.prefix)
        : sortKey === filter.sortKey.equals),
  );
}
