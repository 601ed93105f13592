import { additiveTerms, isAdditive, mergeAdditive } from '../../../shared/store/additive-updates.js';
import type { TransactItem } from '../../../shared/store/conditional-write.js';

const add = (
  expression: string,
  names: Record<string, string>,
  values: Record<string, unknown>,
): TransactItem => ({
  Update: {
    TableName: 'main',
    Key: { pk: 'FIRM#firm_a', sk: 'CNT#incidents#00' },
    UpdateExpression: expression,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  },
});

describe('additive updates', () => {
  it('reads the names and numbers of an ADD-only update without a condition', () => {
    const item = add(
      'ADD #rev :one, #c0 :c0',
      { '#rev': 'rev', '#c0': '["open","HIGH"]' },
      { ':one': 1, ':c0': -1 },
    );
    expect(additiveTerms(item)).toEqual(
      new Map([
        ['rev', 1],
        ['["open","HIGH"]', -1],
      ]),
    );
    expect(isAdditive(item)).toBe(true);
  });

  it('refuses anything else: a condition, a SET clause, a set value, a Put', () => {
    const counted = add('ADD #rev :one', { '#rev': 'rev' }, { ':one': 1 });
    expect(isAdditive({ Update: { ...counted.Update!, ConditionExpression: 'attribute_exists(pk)' } })).toBe(
      false,
    );
    expect(
      isAdditive(add('ADD #rev :one SET #s = :s', { '#rev': 'rev', '#s': 's' }, { ':one': 1, ':s': 'x' })),
    ).toBe(false);
    expect(isAdditive(add('ADD #tags :t', { '#tags': 'tags' }, { ':t': new Set(['a']) }))).toBe(false);
    expect(isAdditive({ Put: { TableName: 'main', Item: { pk: 'a', sk: 'b' } } })).toBe(false);
  });

  it('sums several additive updates of one item into one', () => {
    const first = add('ADD #rev :one, #c0 :c0', { '#rev': 'rev', '#c0': 'open' }, { ':one': 1, ':c0': 1 });
    const second = add(
      'ADD #rev :one, #c0 :c0, #c1 :c1',
      { '#rev': 'rev', '#c0': 'open', '#c1': 'resolved' },
      { ':one': 1, ':c0': -1, ':c1': 1 },
    );
    const merged = mergeAdditive([first, second]);
    expect(merged.Update).toMatchObject({
      TableName: 'main',
      Key: { pk: 'FIRM#firm_a', sk: 'CNT#incidents#00' },
    });
    expect(merged.Update!.ConditionExpression).toBeUndefined();
    expect(additiveTerms(merged)).toEqual(
      new Map([
        ['rev', 2],
        ['open', 0],
        ['resolved', 1],
      ]),
    );
    expect(mergeAdditive([first])).toBe(first);
  });
});
