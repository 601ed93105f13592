import { ValidationError } from '../../../shared/errors.js';
import type { DocumentDb } from '../../../shared/store/dynamo.js';
import { readListPage, type ListQuery } from '../../../shared/store/list-page.js';

/**
 * A table of `count` items under one partition, `matches(i)` deciding which pass the filter, answered like
 * DynamoDB: Limit counts items read before the filter, LastEvaluatedKey is the last item read.
 */
function fakeDb(count: number, matches: (i: number) => boolean = () => true) {
  const limits: number[] = [];
  const item = (i: number) => ({ pk: 'FIRM#f', sk: `JOB#${String(i).padStart(4, '0')}`, n: i });
  const db: DocumentDb = {
    send: (async (command: { input: { Limit: number; ExclusiveStartKey?: { sk: string } } }) => {
      const { Limit, ExclusiveStartKey } = command.input;
      limits.push(Limit);
      const from = ExclusiveStartKey ? Number(ExclusiveStartKey.sk.slice(4)) + 1 : 0;
      const read = Array.from({ length: Math.max(0, Math.min(Limit, count - from)) }, (_, k) => from + k);
      const last = read.at(-1);
      return {
        Items: read.filter(matches).map(item),
        ScannedCount: read.length,
        LastEvaluatedKey:
          last !== undefined && last < count - 1 ? { pk: 'FIRM#f', sk: item(last).sk } : undefined,
      };
    }) as unknown as DocumentDb['send'],
  };
  return { db, limits };
}

const query: ListQuery = {
  input: { TableName: 't', KeyConditionExpression: 'pk = :pk' },
  keyBounds: { pk: { equals: 'FIRM#f' }, sk: { prefix: 'JOB#' } },
};

describe('readListPage', () => {
  it('reads pageSize + 1 items and ends the page on its last item when more follow', async () => {
    const { db, limits } = fakeDb(10);
    const page = await readListPage(db, query, { pageSize: 3 });
    expect(page.items.map((i) => i.n)).toEqual([0, 1, 2]);
    expect(page.nextKey).toEqual({ pk: 'FIRM#f', sk: 'JOB#0002' });
    expect(limits).toEqual([4]);
    expect(page.scanned).toBe(4);
  });

  it('has no next key on the last page', async () => {
    const { db } = fakeDb(5);
    const page = await readListPage(db, query, { pageSize: 3, startKey: { pk: 'FIRM#f', sk: 'JOB#0001' } });
    expect(page.items.map((i) => i.n)).toEqual([2, 3, 4]);
    expect(page.nextKey).toBeNull();
  });

  it('with a filter, stops at its budget with a short page and the key of the last item read', async () => {
    const { db, limits } = fakeDb(1000, (i) => i % 50 === 0);
    const page = await readListPage(db, query, { pageSize: 5, budget: 20 });
    expect(page.items.map((i) => i.n)).toEqual([0]);
    expect(page.scanned).toBe(20);
    expect(limits.reduce((a, b) => a + b, 0)).toBe(20);
    expect(page.nextKey).toEqual({ pk: 'FIRM#f', sk: 'JOB#0019' });
  });

  it.each([
    ['another firm', { pk: 'FIRM#g', sk: 'JOB#0001' }],
    ['another kind of item', { pk: 'FIRM#f', sk: 'USER#0001' }],
    ['an extra attribute', { pk: 'FIRM#f', sk: 'JOB#0001', listPk: 'x' }],
    ['a number', { pk: 'FIRM#f', sk: 7 }],
  ])('refuses a start key of %s before reading anything', async (_name, startKey) => {
    const { db, limits } = fakeDb(10);
    await expect(readListPage(db, query, { pageSize: 3, startKey })).rejects.toBeInstanceOf(ValidationError);
    expect(limits).toEqual([]);
  });
});
