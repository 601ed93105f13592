import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { Deps } from '../../../shared/runtime/deps.js';
import { listPendingOutbox, OUTBOX_SHARDS, outboxShard } from '../../../shared/store/ledger-outbox-store.js';

const ddb = mockClient(DynamoDBDocumentClient);
const deps = {
  db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-2' })),
  tables: { main: 'main', ledger: 'ledger' },
} as unknown as Deps;

beforeEach(() => ddb.reset());

describe('outboxShard', () => {
  it('spreads one firm’s consecutive records over every shard', () => {
    const shards = new Set(Array.from({ length: OUTBOX_SHARDS }, (_, i) => outboxShard('firm_a', i + 1)));
    expect(shards.size).toBe(OUTBOX_SHARDS);
    expect([...shards].every((s) => /^PENDING#([0-9]|1[0-5])$/.test(s))).toBe(true);
  });
});

describe('listPendingOutbox', () => {
  it('reads every shard and the unsharded key, and returns the oldest entries first, up to the limit', async () => {
    ddb.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: { ':p': string } }) => {
      const shard = input.ExpressionAttributeValues[':p'];
      if (shard === 'PENDING') return { Items: [entry('firm_old', 1, '2026-01-01T00:00:00.000Z')] };
      if (shard === 'PENDING#3') return { Items: [entry('firm_a', 3, '2026-11-25T10:00:03.000Z')] };
      if (shard === 'PENDING#7') return { Items: [entry('firm_b', 9, '2026-11-25T10:00:01.000Z')] };
      return { Items: [] };
    });
    const pending = await listPendingOutbox(deps, '2026-11-25T11:00:00.000Z', 2);
    const keys = ddb.commandCalls(QueryCommand).map((c) => c.args[0].input.ExpressionAttributeValues![':p']);
    expect(new Set(keys).size).toBe(OUTBOX_SHARDS + 1);
    expect(pending.map((p) => [p.firmId, p.sequenceNumber])).toEqual([
      ['firm_old', 1],
      ['firm_b', 9],
    ]);
  });
});

function entry(firmId: string, sequenceNumber: number, at: string) {
  return { firmId, sequenceNumber, body: '{}', pendingSince: `${at}#${firmId}#${sequenceNumber}` };
}
