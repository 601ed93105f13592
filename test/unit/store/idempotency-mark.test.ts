import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { IdempotencyKeyInUseError } from '../../../shared/errors.js';
import {
  updateConditionally,
  writeConditionally,
  type TransactItem,
} from '../../../shared/store/conditional-write.js';
import { outsideRequest, runWithClaim } from '../../../shared/store/idempotency-context.js';
import { keys } from '../../../shared/store/keys.js';
import { mockedStore } from '../../support/mocked-store.js';

/** Issue 19, part 3: which writes carry a request's Idempotency-Key mark, and what its outcome means. */

const { db, deps } = mockedStore();

const claim = { firmId: 'f', keyHash: 'h', token: 't-1' };
const keyItem = keys.idempotencyKey('f', 'h');
const put = (table: string): TransactItem => ({
  Put: {
    TableName: table,
    Item: { pk: 'FIRM#f', sk: 'X#1' },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});
const check: TransactItem = {
  ConditionCheck: {
    TableName: 'main',
    Key: { pk: 'FIRM#f', sk: 'X#1' },
    ConditionExpression: 'attribute_exists(pk)',
  },
};
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

/** The items of every transaction sent so far. */
const transactions = () =>
  db.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems ?? []);

beforeEach(() => db.reset());

describe('the Idempotency-Key mark', () => {
  it('joins the first main-table write as its last item, conditional on the claim’s token', async () => {
    db.on(TransactWriteCommand).resolves({});
    const { outcome, carried } = await runWithClaim(claim, () => writeConditionally(deps, [put('main')]));
    expect(outcome).toEqual({ status: 'fulfilled', value: { status: 'committed' } });
    expect(carried).toEqual({ recordId: null });
    const [items] = transactions();
    expect(items).toHaveLength(2);
    expect(items![1]!.Update).toMatchObject({
      TableName: 'main',
      Key: keyItem,
      ConditionExpression: '#state = :inProgress AND #token = :token',
      ExpressionAttributeValues: expect.objectContaining({ ':token': 't-1', ':committed': 'COMMITTED' }),
    });
  });

  it('is carried once: a later write of the same request is sent as it is', async () => {
    db.on(TransactWriteCommand).resolves({});
    db.on(PutCommand).resolves({});
    await runWithClaim(claim, async () => {
      await writeConditionally(deps, [put('main')]);
      await writeConditionally(deps, [put('main')]);
    });
    expect(transactions()).toHaveLength(1);
    expect(db.commandCalls(PutCommand)).toHaveLength(1);
  });

  it('stays for the next attempt when another condition of the write fails, at the caller’s own index', async () => {
    db.on(TransactWriteCommand).rejectsOnce(cancelled('ConditionalCheckFailed', 'None')).resolves({});
    const { outcome, carried } = await runWithClaim(claim, async () => {
      const lost = await writeConditionally(deps, [put('main')]);
      expect(lost).toEqual({ status: 'condition-failed', failedItems: [0] });
      return writeConditionally(deps, [put('main')]);
    });
    expect(outcome.status).toBe('fulfilled');
    expect(carried).toBeDefined();
    expect(transactions()).toHaveLength(2);
    expect(transactions()[1]).toHaveLength(2);
  });

  it('throws IDEMPOTENCY_KEY_IN_USE when its own condition fails (the key was taken over)', async () => {
    db.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    db.on(GetCommand).resolves({ Item: { ...keyItem, state: 'IN_PROGRESS', token: 'a retry’s token' } });
    const { outcome, carried } = await runWithClaim(claim, () => writeConditionally(deps, [put('main')]));
    expect(outcome.status).toBe('rejected');
    expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(IdempotencyKeyInUseError);
    expect(carried).toBeUndefined();
  });

  it('is committed when its condition failed on its own mark: the SDK retried a write that had been applied', async () => {
    // The first attempt committed (write and mark), its answer was lost; the SDK's retry then failed both.
    db.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'ConditionalCheckFailed'));
    db.on(GetCommand).resolves({ Item: { ...keyItem, state: 'COMMITTED', token: 't-1', recordId: null } });
    const { outcome, carried } = await runWithClaim(claim, () => writeConditionally(deps, [put('main')]));
    expect(outcome).toEqual({ status: 'fulfilled', value: { status: 'committed' } });
    expect(carried).toEqual({ recordId: null });
    expect(db.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({
      Key: keyItem,
      ConsistentRead: true,
    });
  });

  it.each([
    ['a ledger-table write', [put('ledger')]],
    ['a write of both tables', [put('main'), put('ledger')]],
    ['a write of only ConditionChecks (it writes nothing)', [check, check]],
  ])('is not carried by %s', async (_what, items) => {
    db.on(TransactWriteCommand).resolves({});
    db.on(PutCommand).resolves({});
    const { carried } = await runWithClaim(claim, () => writeConditionally(deps, items));
    expect(carried).toBeUndefined();
    for (const sent of transactions()) expect(sent).toHaveLength(items.length);
  });

  it('is not carried outside the request: without a claim, in work run outside it, or after it answered', async () => {
    db.on(PutCommand).resolves({});
    await writeConditionally(deps, [put('main')]);
    let later: (() => Promise<unknown>) | undefined;
    const { carried } = await runWithClaim(claim, async () => {
      await outsideRequest(() => writeConditionally(deps, [put('main')]));
      later = () => writeConditionally(deps, [put('main')]);
    });
    await later!();
    expect(carried).toBeUndefined();
    expect(transactions()).toHaveLength(0);
    expect(db.commandCalls(PutCommand)).toHaveLength(3);
  });

  it('turns updateConditionally into a transaction and reads the item back', async () => {
    db.on(TransactWriteCommand).resolves({});
    db.on(GetCommand).resolves({ Item: { pk: 'FIRM#f', sk: 'X#1', a: 2 } });
    const { outcome } = await runWithClaim(claim, () =>
      updateConditionally(deps, {
        TableName: 'main',
        Key: { pk: 'FIRM#f', sk: 'X#1' },
        UpdateExpression: 'SET a = :a',
        ExpressionAttributeValues: { ':a': 2 },
      }),
    );
    expect(outcome).toEqual({
      status: 'fulfilled',
      value: { status: 'committed', item: { pk: 'FIRM#f', sk: 'X#1', a: 2 } },
    });
    expect(db.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(transactions()[0]).toHaveLength(2);
    expect(db.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({ ConsistentRead: true });
  });
});
