import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  releaseWriteSlot,
  slotGiveBackItem,
  takeWriteToken,
} from '../../../shared/store/rate-limit-store.js';
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
const failedWith = (tat: number, leases: Record<string, number> = {}) =>
  new ConditionalCheckFailedException({
    message: 'failed',
    ...metadata,
    Item: {
      tat: { N: String(tat) },
      ...Object.fromEntries(Object.entries(leases).map(([name, lease]) => [name, { N: String(lease) }])),
    },
  });
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
    expect(await takeWriteToken(deps, firmId, policy, T0)).toEqual({
      allowed: false,
      tat: T0 + 2 * S,
      refusedBy: 'rate',
    });
    expect(db.commandCalls(UpdateCommand)).toHaveLength(1);
    // tat never decreases: what was seen is a lower bound, so the next refusal needs no call.
    db.resetHistory();
    expect(await takeWriteToken(deps, firmId, policy, T0 + 1)).toEqual({
      allowed: false,
      tat: T0 + 2 * S,
      refusedBy: 'rate',
    });
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

describe('takeWriteToken under a concurrency cap (slots leased on the same item)', () => {
  const capped = { ratePerSecond: 1, burst: 5, concurrency: 2 };
  /** The default lease, FIRM_WRITE_SLOT_SECONDS unset: 30 s. */
  const LEASE = 30 * S;

  it('takes a token and the first free slot in one conditional update', async () => {
    db.on(UpdateCommand).resolves({ Attributes: { tat: T0 + S, slot0: T0 + LEASE } });
    const firmId = newFirm();
    expect(await takeWriteToken(deps, firmId, capped, T0)).toEqual({
      allowed: true,
      tat: T0 + S,
      slot: { slot: 0, leaseEnd: T0 + LEASE },
    });
    const calls = db.commandCalls(UpdateCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      TableName: 'main',
      Key: { pk: `FIRM#${firmId}`, sk: 'RATELIMIT#WRITES' },
      UpdateExpression: 'SET tat = :next, #slot = :lease',
      ConditionExpression:
        '(attribute_not_exists(tat) OR tat <= :now) AND (attribute_not_exists(#slot) OR #slot <= :now)',
      ExpressionAttributeNames: { '#slot': 'slot0' },
      ExpressionAttributeValues: { ':next': T0 + S, ':now': T0, ':lease': T0 + LEASE },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      ReturnValues: 'ALL_NEW',
    });
  });

  it('moves to a slot the failed condition shows free, with the step it shows', async () => {
    db.on(UpdateCommand)
      .rejectsOnce(failedWith(T0 + S, { slot0: T0 + LEASE }))
      .resolvesOnce({ Attributes: { tat: T0 + 2 * S, slot0: T0 + LEASE, slot1: T0 + LEASE } });
    const result = await takeWriteToken(deps, newFirm(), capped, T0);
    expect(result).toEqual({ allowed: true, tat: T0 + 2 * S, slot: { slot: 1, leaseEnd: T0 + LEASE } });
    const second = db.commandCalls(UpdateCommand)[1]!.args[0].input;
    expect(second).toMatchObject({
      UpdateExpression: 'SET tat = tat + :token, #slot = :lease',
      ConditionExpression:
        '(tat > :now AND tat <= :ceiling) AND (attribute_not_exists(#slot) OR #slot <= :now)',
      ExpressionAttributeNames: { '#slot': 'slot1' },
    });
  });

  it('refuses without a token when DynamoDB shows every slot held: one call, nothing written', async () => {
    db.on(UpdateCommand).rejects(failedWith(T0 + S, { slot0: T0 + LEASE, slot1: T0 + 2 * S }));
    expect(await takeWriteToken(deps, newFirm(), capped, T0)).toEqual({
      allowed: false,
      tat: T0 + S,
      refusedBy: 'concurrency',
    });
    expect(db.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('takes a slot whose lease ran out (a holder that crashed)', async () => {
    db.on(UpdateCommand)
      .rejectsOnce(failedWith(T0 + S, { slot0: T0 + LEASE, slot1: T0 - 1 }))
      .resolvesOnce({ Attributes: { tat: T0 + 2 * S, slot0: T0 + LEASE, slot1: T0 + LEASE } });
    const result = await takeWriteToken(deps, newFirm(), capped, T0);
    expect(result).toMatchObject({ allowed: true, slot: { slot: 1 } });
  });

  it('asks DynamoDB before refusing when only its memory shows every slot held', async () => {
    const firmId = newFirm();
    db.on(UpdateCommand).resolves({ Attributes: { tat: T0 + S, slot0: T0 + LEASE, slot1: T0 + 2 * LEASE } });
    await takeWriteToken(deps, firmId, capped, T0);
    db.reset();
    // Both slots were given back since: the slot whose remembered lease ends first is tried, and taken.
    db.on(UpdateCommand).resolves({ Attributes: { tat: T0 + 2 * S, slot0: T0 + 1 + LEASE } });
    expect(await takeWriteToken(deps, firmId, capped, T0 + 1)).toMatchObject({
      allowed: true,
      slot: { slot: 0 },
    });
    expect(db.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('refuses by its cap, never a 503, when slots keep being taken under it', async () => {
    // Every try finds the slot it chose just taken and another one free: the cap's slots are being fought over.
    let n = 0;
    db.on(UpdateCommand).callsFake(() => {
      n++;
      throw failedWith(T0 + S, n % 2 ? { slot0: T0 + LEASE } : { slot1: T0 + LEASE });
    });
    expect(await takeWriteToken(deps, newFirm(), capped, T0)).toMatchObject({
      allowed: false,
      refusedBy: 'concurrency',
    });
    expect(n).toBe(5 + capped.concurrency);
  });

  it('the bucket still refuses first, without any call once known', async () => {
    const firmId = newFirm();
    db.on(UpdateCommand).rejects(failedWith(T0 + 6 * S, {}));
    expect(await takeWriteToken(deps, firmId, capped, T0)).toMatchObject({
      allowed: false,
      refusedBy: 'rate',
    });
    db.resetHistory();
    expect(await takeWriteToken(deps, firmId, capped, T0 + 1)).toMatchObject({ refusedBy: 'rate' });
    expect(db.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});

describe('releaseWriteSlot', () => {
  it('removes the slot only while it still holds this lease', async () => {
    db.on(UpdateCommand).resolves({ Attributes: { tat: T0 + S } });
    const firmId = newFirm();
    await releaseWriteSlot(deps, firmId, 2, { slot: 1, leaseEnd: T0 + 30 * S });
    expect(db.commandCalls(UpdateCommand)[0]!.args[0].input).toEqual({
      TableName: 'main',
      Key: { pk: `FIRM#${firmId}`, sk: 'RATELIMIT#WRITES' },
      UpdateExpression: 'REMOVE #slot',
      ConditionExpression: '#slot = :lease',
      ExpressionAttributeNames: { '#slot': 'slot1' },
      ExpressionAttributeValues: { ':lease': T0 + 30 * S },
      ReturnValues: 'ALL_NEW',
    });
  });

  it('leaves a slot another request took after this lease ran out', async () => {
    db.on(UpdateCommand).rejects(failedWith(T0 + S, { slot1: T0 + 31 * S }));
    await expect(
      releaseWriteSlot(deps, newFirm(), 2, { slot: 1, leaseEnd: T0 + 30 * S }),
    ).resolves.toBeUndefined();
    expect(db.commandCalls(UpdateCommand)).toHaveLength(1);
  });
});

describe('slotGiveBackItem', () => {
  it('is an unconditional REMOVE of the slot, so it can never fail the append it rides in', () => {
    expect(slotGiveBackItem(deps, 'f9', { slot: 1, leaseEnd: T0 })).toEqual({
      Update: {
        TableName: 'main',
        Key: { pk: 'FIRM#f9', sk: 'RATELIMIT#WRITES' },
        UpdateExpression: 'REMOVE #slot',
        ExpressionAttributeNames: { '#slot': 'slot1' },
      },
    });
  });
});
