import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { takeWriteToken } from '../../../shared/store/rate-limit-store.js';
import { mockedStore } from '../../support/mocked-store.js';

/**
 * The bucket's DynamoDB calls (one conditional UpdateItem per request; two when this instance's view is stale;
 * none for a refusal already known), against a mocked client: what the store sends and what it makes of it.
 */
const { db, deps } = mockedStore();

const S = 1_000_000;
const T0 = 1_764_000_000 * S;
const policy = { ratePerSecond: 1, burst: 2 };
const metadata = { $metadata: {} };
const failedWith = (tat: number) =>
  new ConditionalCheckFailedException({ message: 'failed', ...metadata, Item: { tat: { N: String(tat) } } });
let firm = 0;
const newFirm = () => `f${++firm}`;

beforeEach(() => db.reset());

describe('takeWriteToken', () => {
  it('refills a bucket it has not seen with one conditional update of the firm item', async () => {
    db.on(UpdateCommand).resolves({ Attributes: { tat: T0 + S } });
    const firmId = newFirm();
    expect(await takeWriteToken(deps, firmId, policy, T0)).toEqual({ allowed: true, tat: T0 + S });
    const calls = db.commandCalls(UpdateCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      TableName: 'main',
      Key: { pk: `FIRM#${firmId}`, sk: 'RATELIMIT#WRITES' },
      UpdateExpression: 'SET tat = :next',
      ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
      ExpressionAttributeValues: { ':next': T0 + S, ':now': T0 },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      ReturnValues: 'ALL_NEW',
    });
  });

  it('after a lost refill, takes from what the failed condition returned: two calls, no read', async () => {
    db.on(UpdateCommand)
      .rejectsOnce(failedWith(T0 + S))
      .resolvesOnce({ Attributes: { tat: T0 + 2 * S } });
    expect(await takeWriteToken(deps, newFirm(), policy, T0)).toEqual({ allowed: true, tat: T0 + 2 * S });
    const calls = db.commandCalls(UpdateCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.args[0].input).toMatchObject({
      UpdateExpression: 'SET tat = tat + :token',
      ConditionExpression: 'tat > :now AND tat <= :ceiling',
      ExpressionAttributeValues: { ':token': S, ':now': T0, ':ceiling': T0 + S },
    });
  });

  it('refuses when the failed condition shows the bucket empty, and then without any call', async () => {
    const firmId = newFirm();
    db.on(UpdateCommand).rejects(failedWith(T0 + 2 * S));
    expect(await takeWriteToken(deps, firmId, policy, T0)).toEqual({ allowed: false, tat: T0 + 2 * S });
    expect(db.commandCalls(UpdateCommand)).toHaveLength(1);
    // tat never decreases: what was seen is a lower bound, so the next refusal needs no call.
    db.resetHistory();
    expect(await takeWriteToken(deps, firmId, policy, T0 + 1)).toEqual({ allowed: false, tat: T0 + 2 * S });
    expect(db.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('takes with one call when it last saw the bucket in use', async () => {
    const firmId = newFirm();
    db.on(UpdateCommand).resolves({ Attributes: { tat: T0 + S } });
    await takeWriteToken(deps, firmId, policy, T0);
    db.reset();
    db.on(UpdateCommand).resolves({ Attributes: { tat: T0 + 2 * S } });
    expect(await takeWriteToken(deps, firmId, policy, T0 + 1000)).toEqual({ allowed: true, tat: T0 + 2 * S });
    expect(db.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(db.commandCalls(UpdateCommand)[0]!.args[0].input.UpdateExpression).toBe('SET tat = tat + :token');
  });
});
