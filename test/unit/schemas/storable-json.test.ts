import { canonicalOrNull, distinctText } from '../../../shared/domain/integrity/record-diff.js';
import {
  findUnstorable,
  MAX_FIELD_DEPTH,
  StorableJsonObject,
} from '../../../shared/schemas/storable-json.js';

const problems = (json: string, maxDepth = 20) =>
  findUnstorable(JSON.parse(json), { maxDepth }).map((p) => [p.path.join('.'), p.message]);

describe('findUnstorable', () => {
  it.each(['1e21', '9007199254740993', '-9007199254740993', '1e-200', '-1e-131'])(
    'refuses the number %s at its path',
    (number) => {
      expect(problems(`{"a":[0,${number}]}`)).toEqual([['a.1', expect.any(String)]]);
    },
  );

  it('accepts the numbers DynamoDB and RFC 8785 hold exactly', () => {
    expect(problems('[0,-0,1e-130,-1e-130,9007199254740991,-9007199254740991,0.1,123.456]')).toEqual([]);
    // Every double of 2^53 or more is an integer, so refused: none reaches DynamoDB's largest, 9.99E+125.
    expect(problems('[1.7976931348623157e+308]')).toEqual([['0', expect.stringMatching(/integers/)]]);
  });

  it('refuses Infinity, empty keys and lone surrogates in values and keys', () => {
    expect(findUnstorable({ a: Infinity }, { maxDepth: 5 })).toHaveLength(1);
    expect(problems('{"x":{"":1}}')).toEqual([['x', 'object keys must not be empty']]);
    expect(problems('{"x":"T\\ud800"}')).toEqual([['x', expect.stringMatching(/surrogate/)]]);
    expect(problems('{"T\\udc00":1}')).toEqual([['', expect.stringMatching(/surrogate/)]]);
    expect(problems('{"pair":"\\ud83d\\ude00"}')).toEqual([]);
  });

  it('walks any depth without recursion and stops at the limit', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    const found = findUnstorable(deep, { maxDepth: 20 });
    expect(found).toHaveLength(1);
    expect(found[0]!.path).toHaveLength(20);
    expect(findUnstorable(JSON.parse(`${'['.repeat(20)}${']'.repeat(20)}`), { maxDepth: 20 })).toEqual([]);
  });

  it('bounds the stored size of a free-form field', () => {
    const result = StorableJsonObject.safeParse({ text: 'x'.repeat(100_001) });
    expect(result.success).toBe(false);
    let nested: unknown = 1;
    for (let level = 0; level < MAX_FIELD_DEPTH; level += 1) nested = { a: nested };
    expect(StorableJsonObject.safeParse(nested).success).toBe(true);
    expect(StorableJsonObject.safeParse({ a: nested }).success).toBe(false);
  });
});

describe('comparing damaged values', () => {
  it('a value without a canonical form is null, and its distinct text tells damages apart', () => {
    expect(canonicalOrNull({ b: 1, a: 'x' })).toBe('{"a":"x","b":1}');
    expect(canonicalOrNull({ name: 'T\ud800' })).toBeNull();
    expect(distinctText({ name: 'T\ud800' })).not.toBe(distinctText({ name: 'T\ud801' }));
    expect(distinctText({ name: 'T\ud800', s: new Set(['a']) })).toBe(
      'raw:{"name":"T\\ud800","s":{"$set":["a"]}}',
    );
  });
});
