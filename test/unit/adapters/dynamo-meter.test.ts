import { GetItemCommand, QueryCommand as RawQueryCommand } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { DynamoMeter, meteredDb, SLOW_CALL_MS } from '../../../shared/adapters/local/dynamo-meter.js';
import type { DocumentDb } from '../../../shared/store/dynamo.js';

/** A client answering each command with the output queued for it. */
function fakeDb(outputs: unknown[]): DocumentDb {
  return { send: (async () => outputs.shift()) as unknown as DocumentDb['send'] };
}

describe('DynamoMeter (LOCAL_DYNAMO_METRICS)', () => {
  it('counts read calls and the items DynamoDB read: ScannedCount, found items, batch and transaction reads', async () => {
    const meter = DynamoMeter.create();
    const db = meteredDb(
      fakeDb([
        { Items: [{}], Count: 1, ScannedCount: 40 }, // a filtered query reads 40 items to return 1
        { Count: 0, ScannedCount: 0 },
        { Item: { pk: 'a' } },
        {}, // a GetItem that found nothing
        { Item: { pk: { S: 'a' } } },
        { Items: [], ScannedCount: 7 },
        { Responses: { main: [{}, {}], ledger: [{}] } },
        { Responses: [{ Item: {} }, {}, { Item: {} }] },
        {}, // a write: counted as a write call, not a read
      ]),
      meter,
    );
    const query = { TableName: 't', KeyConditionExpression: 'pk = :pk' };
    await db.send(new QueryCommand(query));
    await db.send(new QueryCommand(query));
    await db.send(new GetCommand({ TableName: 't', Key: { pk: 'a' } }));
    await db.send(new GetCommand({ TableName: 't', Key: { pk: 'b' } }));
    await db.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }));
    await db.send(new RawQueryCommand(query));
    await db.send(new BatchGetCommand({ RequestItems: {} }));
    await db.send(new TransactGetCommand({ TransactItems: [] }));
    await db.send(new PutCommand({ TableName: 't', Item: { pk: 'a' } }));
    expect(meter.counts()).toEqual({
      dynamoReadCalls: 8,
      dynamoItemsRead: 40 + 0 + 1 + 0 + 1 + 7 + 3 + 2,
      dynamoWriteCalls: 1,
      dynamoCallsTimed: 9,
      dynamoCallMicros: expect.any(Number),
      dynamoSlowCalls: expect.any(Number),
    });
  });

  it('counts a write call whatever its answer, a refused condition included', async () => {
    const meter = DynamoMeter.create();
    const refusing: DocumentDb = {
      send: (async () => {
        throw Object.assign(new Error('The conditional request failed'), {
          name: 'ConditionalCheckFailedException',
        });
      }) as unknown as DocumentDb['send'],
    };
    const db = meteredDb(refusing, meter);
    await expect(
      db.send(new UpdateCommand({ TableName: 't', Key: { pk: 'a' }, UpdateExpression: 'SET a = :a' })),
    ).rejects.toThrow('conditional');
    await expect(db.send(new TransactWriteCommand({ TransactItems: [] }))).rejects.toThrow();
    expect(meter.counts()).toEqual({
      dynamoReadCalls: 0,
      dynamoItemsRead: 0,
      dynamoWriteCalls: 2,
      dynamoCallsTimed: 2,
      dynamoCallMicros: expect.any(Number),
      dynamoSlowCalls: expect.any(Number),
    });
  });

  it('shares its counters with every thread that attaches to its buffer', async () => {
    const meter = DynamoMeter.create();
    const other = DynamoMeter.attach(meter.buffer);
    await meteredDb(fakeDb([{ ScannedCount: 5 }]), other).send(
      new QueryCommand({ TableName: 't', KeyConditionExpression: 'pk = :pk' }),
    );
    expect(meter.counts()).toEqual({
      dynamoReadCalls: 1,
      dynamoItemsRead: 5,
      dynamoWriteCalls: 0,
      dynamoCallsTimed: 1,
      dynamoCallMicros: expect.any(Number),
      dynamoSlowCalls: expect.any(Number),
    });
  });

  it('times every call, answered or refused, and counts the slow ones', async () => {
    const meter = DynamoMeter.create();
    const delays = [5, SLOW_CALL_MS + 30, 0];
    const db: DocumentDb = {
      send: (async () => {
        const ms = delays.shift()!;
        await new Promise((done) => setTimeout(done, ms));
        if (ms === 0) throw Object.assign(new Error('refused'), { name: 'ConditionalCheckFailedException' });
        return {};
      }) as unknown as DocumentDb['send'],
    };
    const metered = meteredDb(db, meter);
    await metered.send(new GetCommand({ TableName: 't', Key: { pk: 'a' } }));
    await metered.send(new PutCommand({ TableName: 't', Item: { pk: 'a' } }));
    await expect(metered.send(new PutCommand({ TableName: 't', Item: { pk: 'b' } }))).rejects.toThrow(
      'refused',
    );
    const counts = meter.counts();
    expect(counts.dynamoCallsTimed).toBe(3);
    expect(counts.dynamoSlowCalls).toBe(1);
    expect(counts.dynamoCallMicros).toBeGreaterThanOrEqual((5 + SLOW_CALL_MS + 30) * 1000 - 2000);
  });
});
