import {
  checkableTogether,
  conditionChecks,
  extrasAt,
  holdsTimestampToken,
  placeBatch,
  planBatch,
  TRANSACTION_MAX_ITEMS,
  type PendingAppend,
} from '../../../shared/ledger-writer/append-batch.js';
import { itemKey, type TransactItem } from '../../../shared/store/conditional-write.js';

function pending(n: number, overrides: Partial<PendingAppend> = {}): PendingAppend {
  return {
    recordId: `rec_${String(n).padStart(4, '0')}`,
    firmId: 'firm_a',
    eventType: 'DOCUMENT_SUBMITTED',
    actor: { id: 'usr_1', name: 'Ann', fcaRef: null },
    documentHash: '',
    documentMetadata: { n },
    reviewJobId: null,
    requestedAt: '2026-11-25T10:00:00.000Z',
    extras: [],
    timestampToken: `\u0000token-${n}`,
    ...overrides,
  };
}

const jobUpdate = (jobId: string, at = 'x'): TransactItem => ({
  Update: {
    TableName: 'main',
    Key: { pk: 'FIRM#firm_a', sk: `JOB#${jobId}` },
    UpdateExpression: 'SET #s = :s, updatedAt = :at',
    ConditionExpression: '#s = :expected',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: { ':s': 'APPROVED', ':expected': 'IN_REVIEW', ':at': at },
  },
});

const counterAdd = (sk: string, n: number): TransactItem => ({
  Update: {
    TableName: 'main',
    Key: { pk: 'FIRM#firm_a', sk },
    UpdateExpression: 'ADD #rev :one, #c0 :c0',
    ExpressionAttributeNames: { '#rev': 'rev', '#c0': '["open"]' },
    ExpressionAttributeValues: { ':one': 1, ':c0': n },
  },
});

describe('planBatch', () => {
  it('takes every append that fits, in order', () => {
    const all = [1, 2, 3].map((n) => pending(n));
    expect(planBatch(all, () => 0)).toEqual({ batch: all, rest: [] });
  });

  it('stops before DynamoDB’s 100 items per transaction, counting the head, record, outbox and own items', () => {
    const all = Array.from({ length: 60 }, (_, n) => pending(n));
    // Each append: record + outbox + 1 own item (intent) = 3 items; the head is 1 more: 33 appends fit in 100.
    const { batch, rest } = planBatch(all, () => 1);
    expect(batch).toHaveLength(Math.floor((TRANSACTION_MAX_ITEMS - 1) / 3));
    expect(rest).toHaveLength(60 - batch.length);
    expect(rest[0]).toBe(all[batch.length]);
  });

  it('never puts the same item twice in one transaction: the second writer of an item waits for the next batch', () => {
    const all = [
      pending(1, { extras: [jobUpdate('job_1')] }),
      pending(2, { extras: [jobUpdate('job_2')] }),
      pending(3, { extras: [jobUpdate('job_1')] }),
    ];
    const { batch, rest } = planBatch(all, () => 0);
    expect(batch.map((a) => a.recordId)).toEqual(['rec_0001', 'rec_0002']);
    expect(rest.map((a) => a.recordId)).toEqual(['rec_0003']);
  });

  it('lets several appends add to one counter shard (additive updates), never a conditional write beside them', () => {
    const shard = counterAdd('CNT#incidents#00', 1);
    const all = [
      pending(1, { extras: [shard] }),
      pending(2, { extras: [counterAdd('CNT#incidents#00', 2)] }),
      pending(3, { extras: [jobUpdate('job_1'), counterAdd('CNT#incidents#00', 1)] }),
      pending(4, {
        extras: [{ ...shard, Update: { ...shard.Update!, ConditionExpression: 'rev > :zero' } }],
      }),
    ];
    const { batch, rest } = planBatch(all, () => 0);
    // The fourth updates the shard under a condition: not additive, so it waits for the next batch.
    expect(batch).toEqual(all.slice(0, 3));
    expect(rest).toEqual([all[3]]);
    // And a conditional write first keeps an additive update of the same item out.
    const conditionalFirst = [
      pending(5, { extras: [jobUpdate('job_9')] }),
      pending(6, { extras: [counterAdd('JOB#job_9', 1)] }),
    ];
    expect(planBatch(conditionalFirst, () => 0).batch).toEqual(conditionalFirst.slice(0, 1));
  });

  it('stops before 4 MB, but always takes the first append', () => {
    const big = { blob: 'x'.repeat(400_000) };
    const all = Array.from({ length: 5 }, (_, n) => pending(n, { documentMetadata: big }));
    const { batch } = planBatch(all, () => 0);
    expect(batch.length).toBeGreaterThanOrEqual(1);
    expect(batch.length).toBeLessThan(5);
  });
});

describe('placeBatch', () => {
  it('places appends at consecutive sequence numbers after the head', () => {
    const placed = placeBatch([pending(1), pending(2)], { sequenceNumber: 41, timestamp: null });
    expect(placed.map((p) => [p.id, p.sequenceNumber])).toEqual([
      ['rec_0001', 42],
      ['rec_0002', 43],
    ]);
  });

  it('never lets a timestamp go back along the chain', () => {
    const placed = placeBatch(
      [
        pending(1, { requestedAt: '2026-11-25T10:00:01.000Z' }),
        pending(2, { requestedAt: '2026-11-25T10:00:00.500Z' }),
        pending(3, { requestedAt: '2026-11-25T10:00:02.000Z' }),
      ],
      { sequenceNumber: 1, timestamp: '2026-11-25T10:00:01.500Z' },
    );
    expect(placed.map((p) => p.timestamp)).toEqual([
      '2026-11-25T10:00:01.500Z',
      '2026-11-25T10:00:01.500Z',
      '2026-11-25T10:00:02.000Z',
    ]);
  });
});

describe('extrasAt', () => {
  it('replaces the timestamp token wherever it occurs, and nothing else', () => {
    const append = pending(1);
    append.extras = [jobUpdate('job_1', append.timestampToken)];
    const [item] = extrasAt(append, '2026-11-25T10:00:03.000Z');
    expect(item!.Update!.ExpressionAttributeValues).toEqual({
      ':s': 'APPROVED',
      ':expected': 'IN_REVIEW',
      ':at': '2026-11-25T10:00:03.000Z',
    });
    expect(append.extras[0]!.Update!.ExpressionAttributeValues![':at']).toBe(append.timestampToken);
  });
});

describe('checkableTogether', () => {
  it('never puts two checks on one item in one transaction: a later append on an item already checked waits', () => {
    const a = pending(1, { extras: [jobUpdate('job_1')] });
    const b = pending(2, { extras: [jobUpdate('job_2')] });
    const c = pending(3, { extras: [jobUpdate('job_1')] });
    const d = pending(4);
    expect(checkableTogether([a, b, c, d]).map((p) => p.recordId)).toEqual([
      'rec_0001',
      'rec_0002',
      'rec_0004',
    ]);
  });

  it('leaves additive updates out of the question: they make no check', () => {
    const all = [
      pending(1, { extras: [jobUpdate('job_1'), counterAdd('CNT#jobs#00', 1)] }),
      pending(2, { extras: [jobUpdate('job_2'), counterAdd('CNT#jobs#00', 1)] }),
    ];
    expect(checkableTogether(all)).toEqual(all);
  });

  it('stops at a transaction of at most 100 checks', () => {
    const many = Array.from({ length: 120 }, (_, i) => pending(i, { extras: [jobUpdate(`job_${i}`)] }));
    expect(checkableTogether(many)).toHaveLength(TRANSACTION_MAX_ITEMS);
  });
});

describe('holdsTimestampToken', () => {
  it('finds the token (which starts with a NUL character) in a condition that names the timestamp, nowhere else', () => {
    const append = pending(1);
    const naming: TransactItem = {
      Update: {
        TableName: 'main',
        Key: { pk: 'FIRM#firm_a', sk: 'JOB#job_1' },
        UpdateExpression: 'SET breachedAt = :at',
        ConditionExpression: 'slaDeadline < :at',
        ExpressionAttributeValues: { ':at': append.timestampToken },
      },
    };
    expect(holdsTimestampToken(append, conditionChecks([naming]))).toBe(true);
    // Only the update names it, not the condition: the check is free of it.
    expect(holdsTimestampToken(append, conditionChecks([jobUpdate('job_1', append.timestampToken)]))).toBe(
      false,
    );
    expect(holdsTimestampToken(append, [jobUpdate('job_1', append.timestampToken)])).toBe(true);
    expect(holdsTimestampToken(pending(2), conditionChecks([naming]))).toBe(false);
  });
});

describe('conditionChecks', () => {
  it('checks each conditional extra with only the names and values its condition uses', () => {
    const put: TransactItem = {
      Put: {
        TableName: 'main',
        Item: { pk: 'FIRM#firm_a', sk: 'SETTINGS', v: 2 },
        ConditionExpression: 'v = :v',
        ExpressionAttributeValues: { ':v': 1 },
      },
    };
    const unconditional: TransactItem = { Put: { TableName: 'main', Item: { pk: 'p', sk: 's' } } };
    expect(conditionChecks([unconditional, jobUpdate('job_1'), put])).toEqual([
      {
        extra: 1,
        check: {
          ConditionCheck: {
            TableName: 'main',
            Key: { pk: 'FIRM#firm_a', sk: 'JOB#job_1' },
            ConditionExpression: '#s = :expected',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':expected': 'IN_REVIEW' },
          },
        },
      },
      {
        extra: 2,
        check: {
          ConditionCheck: {
            TableName: 'main',
            Key: { pk: 'FIRM#firm_a', sk: 'SETTINGS' },
            ConditionExpression: 'v = :v',
            ExpressionAttributeValues: { ':v': 1 },
          },
        },
      },
    ]);
  });

  it('leaves out the extras an append created under fresh ids (its unchecked indexes), keeping the others’ indexes', () => {
    const created: TransactItem = {
      Put: {
        TableName: 'main',
        Item: { pk: 'FIRM#firm_a', sk: 'INC#inc_1' },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    expect(conditionChecks([created, jobUpdate('job_1')], [0]).map((c) => c.extra)).toEqual([1]);
    expect(conditionChecks([created, jobUpdate('job_1')], [0, 1])).toEqual([]);
    expect(conditionChecks([created, jobUpdate('job_1')]).map((c) => c.extra)).toEqual([0, 1]);
  });
});

describe('itemKey', () => {
  it('names a put by its item’s key and other writes by their key', () => {
    expect(itemKey({ Put: { TableName: 't', Item: { pk: 'a', sk: 'b', x: 1 } } })).toBe('t|a|b');
    expect(itemKey({ Delete: { TableName: 't', Key: { pk: 'a', sk: 'b' } } })).toBe('t|a|b');
  });
});
