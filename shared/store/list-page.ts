import type { AttributeValue, QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../errors.js';
import type { CursorKey } from '../domain/pagination/cursor.js';
import { dynamoSdk, send, type DocumentDb } from './dynamo.js';

/*
 * One page of a list, read in O(page) (issue 14): a Query with a Limit, started after the previous page's last
 * key, that stops as soon as the page is full or its read budget is spent. A query with a FilterExpression
 * may match fewer items than it reads: it then returns a short page (possibly empty) with a next key, so a
 * request never reads more than its budget whatever the data.
 */

/** Where a start key must lie: an exact value, a prefix, or an inclusive range of one key attribute. */
export type KeyBound = { equals: string } | { prefix: string } | { between: readonly [string, string] };

export interface ListQuery {
  /** The Query (table, index, key condition, filter, order); Limit and ExclusiveStartKey are set here. */
  input: QueryCommandInput;
  /** Every attribute of the key a page ends on: the table's pk and sk, plus the index's keys. */
  keyBounds: Readonly<Record<string, KeyBound>>;
  /**
   * Read with the low-level client and convert each item with this instead of the document client's
   * unmarshalling, which throws on numbers outside JavaScript's safe range: ledger rows, which verification
   * and the record endpoints must show whatever a row holds (shared/store/ledger-store.ts).
   */
  raw?: (item: Record<string, AttributeValue>) => Record<string, unknown>;
}

export interface PageRead {
  items: Record<string, unknown>[];
  /** Where the next page starts; null when the list ended. */
  nextKey: CursorKey | null;
  /** Items DynamoDB read (ScannedCount, summed): what the request cost. */
  scanned: number;
}

/**
 * Reads up to `pageSize` items after `startKey`, reading at most `budget` items (at least pageSize + 1, so an
 * unfiltered list knows whether another page follows without an empty last page). `startKey` comes from a
 * client's cursor: it is checked against the query's key bounds before anything is read.
 */
export async function readListPage(
  db: DocumentDb,
  query: ListQuery,
  options: { pageSize: number; budget?: number; startKey?: CursorKey | null },
): Promise<PageRead> {
  const { pageSize } = options;
  const budget = Math.max(options.budget ?? 0, pageSize + 1);
  if (options.startKey) checkStartKey(query.keyBounds, options.startKey);
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined = options.startKey ?? undefined;
  let scanned = 0;
  for (;;) {
    const page = await queryOnce(db, query, {
      ...query.input,
      // Never more than the page still needs (plus one, to know whether more follow), nor than the budget left.
      Limit: Math.min(budget - scanned, pageSize + 1 - items.length),
      ExclusiveStartKey: startKey,
    });
    scanned += page.ScannedCount ?? 0;
    for (const item of page.Items ?? []) {
      if (items.length === pageSize) return { items, nextKey: keyOf(query, items[pageSize - 1]!), scanned };
      items.push(item);
    }
    startKey = page.LastEvaluatedKey;
    if (!startKey) return { items, nextKey: null, scanned };
    if (scanned >= budget || items.length === pageSize) {
      // Out of budget (or full, with more possibly after): the next page starts after the last item read.
      const last = items.length === pageSize ? keyOf(query, items[pageSize - 1]!) : (startKey as CursorKey);
      return { items, nextKey: last, scanned };
    }
  }
}

/** One Query, through the document client or (raw lists) the low-level client with the list's converter. */
async function queryOnce(
  db: DocumentDb,
  query: ListQuery,
  input: QueryCommandInput,
): Promise<{
  Items?: Record<string, unknown>[];
  LastEvaluatedKey?: Record<string, unknown>;
  ScannedCount?: number;
}> {
  if (!query.raw) return send(db, 'Query', input);
  const { QueryCommand } = await dynamoSdk();
  const output = (await db.send(
    new QueryCommand({
      ...input,
      ExpressionAttributeValues: wire(input.ExpressionAttributeValues),
      ExclusiveStartKey: wire(input.ExclusiveStartKey),
    }) as never,
  )) as unknown as QueryCommandOutput;
  const convert = query.raw;
  return {
    Items: (output.Items ?? []).map((item) => ({ ...convert(item), ...keyValues(query, item) })),
    LastEvaluatedKey: output.LastEvaluatedKey ? keyValues(query, output.LastEvaluatedKey) : undefined,
    ScannedCount: output.ScannedCount,
  };
}

/** Strings and numbers as wire attribute values (what list queries and their keys hold). */
function wire(values: Record<string, unknown> | undefined): Record<string, AttributeValue> | undefined {
  if (!values) return undefined;
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => {
      if (typeof value === 'string') return [name, { S: value }];
      if (typeof value === 'number') return [name, { N: String(value) }];
      throw new Error(`A list query value must be a string or a number: ${name}`);
    }),
  );
}

/** The key attributes of a wire item, as plain strings. */
function keyValues(query: ListQuery, item: Record<string, AttributeValue>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(query.keyBounds).map((name) => [name, item[name]?.S]));
}

/** The key of an item as the query's index sees it (its table and index key attributes). */
function keyOf(query: ListQuery, item: Record<string, unknown>): CursorKey {
  return Object.fromEntries(Object.keys(query.keyBounds).map((name) => [name, item[name] as string]));
}

const outside = () =>
  new ValidationError('Invalid cursor', [
    {
      path: 'query.cursor',
      message: 'The cursor does not point into this list: use nextCursor as it was returned',
    },
  ]);

/** A start key from a cursor must be exactly a key of this query's index, inside the firm's part of it. */
function checkStartKey(bounds: Readonly<Record<string, KeyBound>>, key: CursorKey): void {
  const names = Object.keys(bounds);
  if (Object.keys(key).length !== names.length) throw outside();
  for (const name of names) {
    const value = key[name];
    const bound = bounds[name]!;
    if (typeof value !== 'string') throw outside();
    if ('equals' in bound && value !== bound.equals) throw outside();
    if ('prefix' in bound && !value.startsWith(bound.prefix)) throw outside();
    if ('between' in bound && (value < bound.between[0] || value > bound.between[1])) throw outside();
  }
}
