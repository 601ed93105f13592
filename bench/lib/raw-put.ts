import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { cpuSeconds, percentile, runLoops } from './measure.js';

/**
 * The yardstick of the append benches: raw conditional PutItem calls of a small item under unique keys, into a
 * scratch table of their own (no index) on the stack's DynamoDB Local.
 */
export interface PutLevel {
  writers: number;
  putsPerSecond: number;
  p50: number;
  p99: number;
  dynamoCpuPerPutMs: number;
}

export interface ScratchTable {
  db: DynamoDBDocumentClient;
  /** Times `count` raw conditional PutItem calls from `writers` loops; `run` keeps each level's keys apart. */
  measurePuts(run: string, writers: number, count: number): Promise<PutLevel>;
  /** Deletes the table and closes the client. */
  drop(): Promise<void>;
}

export async function createScratchTable(
  endpoint: string,
  dynamoPid: number | undefined,
): Promise<ScratchTable> {
  const tableName = `gls-bench-putitem-${randomUUID().slice(0, 8)}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const db = DynamoDBDocumentClient.from(client);
  return {
    db,
    async measurePuts(run, writers, count) {
      const before = cpuSeconds(dynamoPid);
      const puts = await runLoops(count, writers, async (index) => {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: { pk: `BENCH#${run}#${index}`, sk: 'ITEM', n: index, note: 'raw conditional put' },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      });
      return {
        writers,
        putsPerSecond: count / (puts.wallMs / 1000),
        p50: percentile(puts.latencies, 0.5),
        p99: percentile(puts.latencies, 0.99),
        dynamoCpuPerPutMs: ((cpuSeconds(dynamoPid) - before) * 1000) / count,
      };
    },
    async drop() {
      await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
      client.destroy();
    },
  };
}
