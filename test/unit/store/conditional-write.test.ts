import {
  ConditionalCheckFailedException,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  conditionFailedAt,
  putReplacing,
  updateConditionally,
  writeConditionally,
  writeNew,
  type TransactItem,
} from '../../../shared/store/conditional-write.js';
import { mockedStore } from '../../support/mocked-store.js';

const { db, deps } = mockedStore();

const key = { pk: 'FIRM#f', sk: 'X#1' };
const put: TransactItem = {
  Put: { TableName: 'main', Item: { ...key, a: 1 }, ConditionExpression: 'attribute_not_exists(pk)' },
};
const update: TransactItem = {
  Update: {
    TableName: 'main',
    Key: key,
    UpdateExpression: 'SET a = :a',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':a': 2 },
  },
};
const remove: TransactItem = {
  Delete: { TableName: 'main', Key: key, ConditionExpression: 'attribute_exists(pk)' },
};
const check: TransactItem = {
  ConditionCheck: { TableName: 'main', Key: key, ConditionExpression: 'attribute_exists(pk)' },
};

const metadata = { $metadata: {} };
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'failed', ...metadata });
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'cancelled',
    ...metadata,
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

beforeEach(() => db.reset());

describe('writeConditionally', () => {
  it.each([
    ['Put', put, PutCommand, put.Put],
    ['Update', update, UpdateCommand, update.Update],
    ['Delete', remove, DeleteCommand, remove.Delete],
  ] as const)(
    'sends a single %s as the plain command, not a transaction',
    async (_, item, command, input) => {
      db.resolves({});
      expect(await writeConditionally(deps, [item])).toEqual({ status: 'committed' });
      const calls = db.calls();
      expect(calls).toHaveLength(1);
      const sent = calls[0]!.args[0];
      expect(sent).toBeInstanceOf(command);
      expect(sent.input).toEqual(input);
    },
  );

  it('sends a lone ConditionCheck as a one-item transaction (a plain write has no such command)', async () => {
    db.on(TransactWriteCommand).resolves({});
    expect(await writeConditionally(deps, [check])).toEqual({ status: 'committed' });
    expect(db.commandCalls(TransactWriteCommand)[0]!.args[0].input).toEqual({ TransactItems: [check] });
  });

  it('commits several items in one transaction, in the order given', async () => {
    db.on(TransactWriteCommand).resolves({});
    expect(await writeConditionally(deps, [put, update, remove])).toEqual({ status: 'committed' });
    expect(db.calls()).toHaveLength(1);
    expect(db.commandCalls(TransactWriteCommand)[0]!.args[0].input).toEqual({
      TransactItems: [put, update, remove],
    });
  });

  it('reports a single write whose condition failed as condition-failed at index 0', async () => {
    db.on(UpdateCommand).rejects(conditionFailed());
    const outcome = await writeConditionally(deps, [update]);
    expect(outcome).toEqual({ status: 'condition-failed', failedItems: [0] });
    expect(conditionFailedAt(outcome, 0)).toBe(true);
  });

  it('reports the indexes whose conditions failed from the cancellation reasons', async () => {
    db.on(TransactWriteCommand).rejects(
      cancelled('None', 'ConditionalCheckFailed', 'None', 'ConditionalCheckFailed'),
    );
    const outcome = await writeConditionally(deps, [put, update, remove, check]);
    expect(outcome).toEqual({ status: 'condition-failed', failedItems: [1, 3] });
    expect(conditionFailedAt(outcome, 1)).toBe(true);
    expect(conditionFailedAt(outcome, 0)).toBe(false);
  });

  it('prefers a failed condition over a conflict when both are reported', async () => {
    db.on(TransactWriteCommand).rejects(cancelled('TransactionConflict', 'ConditionalCheckFailed'));
    expect(await writeConditionally(deps, [put, update])).toEqual({
      status: 'condition-failed',
      failedItems: [1],
    });
  });

  it('reports a transaction cancelled by a concurrent transaction as conflict', async () => {
    db.on(TransactWriteCommand).rejects(cancelled('None', 'TransactionConflict'));
    const outcome = await writeConditionally(deps, [put, update]);
    expect(outcome).toEqual({ status: 'conflict' });
    expect(conditionFailedAt(outcome, 0)).toBe(false);
  });

  it('reports a single write that met a transaction in progress as conflict', async () => {
    db.on(PutCommand).rejects(new TransactionConflictException({ message: 'conflict', ...metadata }));
    expect(await writeConditionally(deps, [put])).toEqual({ status: 'conflict' });
  });

  it('reports a single ConditionCheck that failed as condition-failed at index 0', async () => {
    db.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed'));
    expect(await writeConditionally(deps, [check])).toEqual({ status: 'condition-failed', failedItems: [0] });
  });

  it('throws a cancellation for any other reason (throttling, validation): not a lost race', async () => {
    const throttled = cancelled('None', 'ThrottlingError');
    db.on(TransactWriteCommand).rejects(throttled);
    await expect(writeConditionally(deps, [put, update])).rejects.toBe(throttled);
    const invalid = cancelled('ValidationError', 'None');
    db.on(TransactWriteCommand).rejects(invalid);
    await expect(writeConditionally(deps, [put, update])).rejects.toBe(invalid);
  });

  it('throws every other error unchanged', async () => {
    const throttled = new ProvisionedThroughputExceededException({ message: 'slow down', ...metadata });
    db.on(PutCommand).rejects(throttled);
    await expect(writeConditionally(deps, [put])).rejects.toBe(throttled);
    const network = new Error('socket hang up');
    db.on(TransactWriteCommand).rejects(network);
    await expect(writeConditionally(deps, [put, update])).rejects.toBe(network);
  });
});

describe('updateConditionally', () => {
  it('asks for the item after the write and answers with it', async () => {
    db.on(UpdateCommand).resolves({ Attributes: { ...key, a: 2 } });
    expect(await updateConditionally(deps, update.Update!)).toEqual({
      status: 'committed',
      item: { ...key, a: 2 },
    });
    expect(db.commandCalls(UpdateCommand)[0]!.args[0].input).toEqual({
      ...update.Update,
      ReturnValues: 'ALL_NEW',
    });
  });

  it('has the outcomes of a single write when it does not commit', async () => {
    db.on(UpdateCommand).rejects(conditionFailed());
    expect(await updateConditionally(deps, update.Update!)).toEqual({
      status: 'condition-failed',
      failedItems: [0],
    });
    db.on(UpdateCommand).rejects(new TransactionConflictException({ message: 'conflict', ...metadata }));
    expect(await updateConditionally(deps, update.Update!)).toEqual({ status: 'conflict' });
    const other = new Error('boom');
    db.on(UpdateCommand).rejects(other);
    await expect(updateConditionally(deps, update.Update!)).rejects.toBe(other);
  });

  it('hands on the item as it was when the condition failed and the update asked for it (ALL_OLD)', async () => {
    const old = { ...{ pk: { S: key.pk }, sk: { S: key.sk } }, a: { N: '7' } };
    db.on(UpdateCommand).rejects(
      new ConditionalCheckFailedException({ message: 'failed', ...metadata, Item: old }),
    );
    const asked = { ...update.Update!, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
    expect(await updateConditionally(deps, asked)).toEqual({
      status: 'condition-failed',
      failedItems: [0],
      old,
    });
    expect(db.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });
});

describe('putReplacing', () => {
  const ledgerPut = { ...put.Put!, TableName: 'ledger' };

  it('asks for the item it replaced and answers with it, or with none when there was none', async () => {
    db.on(PutCommand).resolves({ Attributes: { ...key, a: 0 } });
    expect(await putReplacing(deps, ledgerPut)).toEqual({ status: 'committed', old: { ...key, a: 0 } });
    expect(db.commandCalls(PutCommand)[0]!.args[0].input).toEqual({ ...ledgerPut, ReturnValues: 'ALL_OLD' });
    db.on(PutCommand).resolves({});
    expect(await putReplacing(deps, ledgerPut)).toEqual({ status: 'committed' });
  });

  it('has the outcomes of a single write when it does not commit', async () => {
    db.on(PutCommand).rejects(conditionFailed());
    expect(await putReplacing(deps, ledgerPut)).toEqual({ status: 'condition-failed', failedItems: [0] });
    db.on(PutCommand).rejects(new TransactionConflictException({ message: 'conflict', ...metadata }));
    expect(await putReplacing(deps, ledgerPut)).toEqual({ status: 'conflict' });
  });

  it('refuses the main table, whose writes may have to carry an idempotency mark', async () => {
    await expect(putReplacing(deps, put.Put!)).rejects.toThrow(/ledger table/);
    expect(db.calls()).toHaveLength(0);
  });
});

describe('writeNew', () => {
  it('writes new items, and throws when anything was in the way', async () => {
    db.on(TransactWriteCommand).resolves({});
    await expect(writeNew(deps, [put, put], 'the pair')).resolves.toBeUndefined();
    db.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    await expect(writeNew(deps, [put, put], 'the pair')).rejects.toThrow(/Writing the pair failed/);
    db.on(PutCommand).rejects(new TransactionConflictException({ message: 'conflict', ...metadata }));
    await expect(writeNew(deps, [put], 'one')).rejects.toThrow(/conflict/);
  });
});
