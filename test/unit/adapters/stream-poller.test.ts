import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { LocalStreamPoller } from '../../../shared/adapters/local/stream-poller.js';
import { logger } from '../../../shared/runtime/logger.js';
import { TAMPER_WATCH_FILTERS } from '../../../shared/workers/table.js';

const dynamo = mockClient(DynamoDBClient);
const streams = mockClient(DynamoDBStreamsClient);
const ARN = 'arn:aws:dynamodb:local:000000000000:table/gls-local-ledger/stream/1';

const change = (seq: number, eventName: 'INSERT' | 'MODIFY' | 'REMOVE', sk: string): _Record => ({
  eventID: `e${seq}`,
  eventName,
  eventVersion: '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: 'ddblocal',
  dynamodb: {
    ApproximateCreationDateTime: new Date('2026-11-28T00:00:01Z'),
    Keys: { pk: { S: 'FIRM#firm_a' }, sk: { S: sk } },
    SequenceNumber: String(seq).padStart(6, '0'),
    SizeBytes: 40,
    StreamViewType: 'KEYS_ONLY',
  },
});

let checkpointFile: string;
let events: DynamoDBStreamEvent[];

function poller(respond: (event: DynamoDBStreamEvent) => DynamoDBBatchResponse | void = () => undefined) {
  return new LocalStreamPoller({
    tableName: 'gls-local-ledger',
    sortKeyAttribute: 'sk',
    filters: TAMPER_WATCH_FILTERS,
    batchSize: 2,
    retryAttempts: 2,
    retryBaseMs: 1,
    describeEveryMs: 60_000,
    tableEveryMs: 120_000,
    checkpointFile,
    deliver: async (event) => {
      events.push(structuredClone(event));
      return respond(event);
    },
    dynamo: new DynamoDBClient({ region: 'local' }),
    streams: new DynamoDBStreamsClient({ region: 'local' }),
  });
}

const sequences = () => events.map((e) => e.Records.map((r) => r.dynamodb!.SequenceNumber));

beforeEach(() => {
  dynamo.reset();
  streams.reset();
  events = [];
  checkpointFile = join(mkdtempSync(join(tmpdir(), 'gls-poller-')), 'stream.json');
  dynamo.on(DescribeTableCommand).resolves({ Table: { LatestStreamArn: ARN } });
  streams.on(DescribeStreamCommand).resolves({ StreamDescription: { Shards: [{ ShardId: 'shard-1' }] } });
  streams.on(GetShardIteratorCommand).resolves({ ShardIterator: 'it-0' });
});

describe('LocalStreamPoller', () => {
  it('reads a new stream from its oldest change and hands over, in batches and Lambda shape, only what the filters pass', async () => {
    streams
      .on(GetRecordsCommand, { ShardIterator: 'it-0' })
      .resolves({
        Records: [
          change(1, 'INSERT', 'REC#000000000001'),
          change(2, 'MODIFY', 'HEAD'),
          change(3, 'REMOVE', 'REC#000000000001'),
          change(4, 'MODIFY', 'REC#000000000002'),
          change(5, 'REMOVE', 'HEAD'),
        ],
        NextShardIterator: 'it-1',
      })
      .on(GetRecordsCommand, { ShardIterator: 'it-1' })
      .resolves({ Records: [], NextShardIterator: 'it-2' });

    expect(await poller().pollOnce()).toBe(3);
    expect(streams.commandCalls(GetShardIteratorCommand)[0]!.args[0].input).toEqual({
      StreamArn: ARN,
      ShardId: 'shard-1',
      ShardIteratorType: 'TRIM_HORIZON',
    });
    expect(sequences()).toEqual([['000003', '000004'], ['000005']]);
    expect(events[0]!.Records[0]).toEqual({
      eventID: 'e3',
      eventName: 'REMOVE',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'ddblocal',
      eventSourceARN: ARN,
      dynamodb: {
        ApproximateCreationDateTime: Date.parse('2026-11-28T00:00:01Z') / 1000,
        Keys: { pk: { S: 'FIRM#firm_a' }, sk: { S: 'REC#000000000001' } },
        SequenceNumber: '000003',
        SizeBytes: 40,
        StreamViewType: 'KEYS_ONLY',
      },
    });
    // The position reached, filtered changes included, is kept for the next run.
    expect(JSON.parse(readFileSync(checkpointFile, 'utf8'))).toEqual({
      streamArn: ARN,
      shards: { 'shard-1': { after: '000005' } },
    });
  });

  it('saves progress over changes the filters drop at most once a second, and at close', async () => {
    // Each round reads pages to an empty one; the empty page's iterator is where the next round goes on.
    const pages: [string, _Record[], string][] = [
      ['it-0', [change(1, 'INSERT', 'REC#000000000001')], 'it-1'],
      ['it-1', [], 'it-2'],
      ['it-2', [change(2, 'MODIFY', 'HEAD')], 'it-3'],
      ['it-3', [], 'it-4'],
      ['it-4', [change(3, 'MODIFY', 'HEAD')], 'it-5'],
      ['it-5', [change(4, 'REMOVE', 'HEAD')], 'it-6'],
      ['it-6', [change(5, 'INSERT', 'REC#000000000005')], 'it-7'],
      ['it-7', [], 'it-7'],
    ];
    for (const [iterator, records, next] of pages)
      streams
        .on(GetRecordsCommand, { ShardIterator: iterator })
        .resolves({ Records: records, NextShardIterator: next });
    const saved = () => JSON.parse(readFileSync(checkpointFile, 'utf8')) as unknown;
    const after = (sequence: string) => ({ streamArn: ARN, shards: { 'shard-1': { after: sequence } } });
    const running = poller();

    expect(await running.pollOnce()).toBe(0);
    expect(saved()).toEqual(after('000001'));
    // Another page of the service's own changes right after: kept in memory, not written.
    expect(await running.pollOnce()).toBe(0);
    expect(saved()).toEqual(after('000001'));
    // A delivered change is saved at once, with everything before it; change 5, dropped after it, waits.
    expect(await running.pollOnce()).toBe(1);
    expect(saved()).toEqual(after('000004'));
    await running.close();
    expect(saved()).toEqual(after('000005'));
  });

  it('goes on after the checkpoint when restarted, and from the oldest change kept when it was trimmed away', async () => {
    streams
      .on(GetRecordsCommand)
      .resolves({ Records: [change(7, 'REMOVE', 'HEAD')], NextShardIterator: 'x' });
    streams.on(GetRecordsCommand, { ShardIterator: 'x' }).resolves({ Records: [], NextShardIterator: 'x' });
    await poller().pollOnce();

    streams.on(GetShardIteratorCommand, { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' }).resolves({
      ShardIterator: 'after-7',
    });
    streams
      .on(GetRecordsCommand, { ShardIterator: 'after-7' })
      .resolves({ Records: [], NextShardIterator: 'x' });
    await poller().pollOnce();
    expect(streams.commandCalls(GetShardIteratorCommand)[1]!.args[0].input).toMatchObject({
      ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
      SequenceNumber: '000007',
    });

    streams
      .on(GetShardIteratorCommand, { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' })
      .rejects(new TrimmedDataAccessException({ message: 'trimmed', $metadata: {} }));
    await poller().pollOnce();
    expect(streams.commandCalls(GetShardIteratorCommand).at(-1)!.args[0].input).toMatchObject({
      ShardIteratorType: 'TRIM_HORIZON',
    });
  });

  it('retries from the first change a batch reports failed, and gives a change up after the retries, saying so', async () => {
    streams
      .on(GetRecordsCommand, { ShardIterator: 'it-0' })
      .resolves({
        Records: [change(1, 'REMOVE', 'REC#000000000001'), change(2, 'REMOVE', 'REC#000000000002')],
        NextShardIterator: 'it-1',
      })
      .on(GetRecordsCommand, { ShardIterator: 'it-1' })
      .resolves({ Records: [], NextShardIterator: 'it-1' });
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    try {
      // 000001 succeeds, 000002 always fails.
      await poller((event) => {
        const failed = event.Records.find((r) => r.dynamodb!.SequenceNumber === '000002');
        return { batchItemFailures: failed ? [{ itemIdentifier: '000002' }] : [] };
      }).pollOnce();
      // The first try, then retryAttempts (2) retries of the failed change alone.
      expect(sequences()).toEqual([['000001', '000002'], ['000002'], ['000002']]);
      expect(error).toHaveBeenCalledWith(
        'A stream change failed after every retry and was given up',
        expect.objectContaining({ sequenceNumber: '000002', eventName: 'REMOVE' }),
      );
    } finally {
      error.mockRestore();
    }
  });

  it('reads a closed parent shard to its end before its child, and starts over on a new stream', async () => {
    streams.on(DescribeStreamCommand).resolves({
      StreamDescription: { Shards: [{ ShardId: 'child', ParentShardId: 'parent' }, { ShardId: 'parent' }] },
    });
    streams.on(GetShardIteratorCommand, { ShardId: 'parent' }).resolves({ ShardIterator: 'p' });
    streams.on(GetShardIteratorCommand, { ShardId: 'child' }).resolves({ ShardIterator: 'c' });
    streams
      .on(GetRecordsCommand, { ShardIterator: 'p' })
      .resolves({ Records: [change(1, 'REMOVE', 'HEAD')] })
      .on(GetRecordsCommand, { ShardIterator: 'c' })
      .resolves({ Records: [change(2, 'REMOVE', 'HEAD')], NextShardIterator: 'c2' })
      .on(GetRecordsCommand, { ShardIterator: 'c2' })
      .resolves({ Records: [], NextShardIterator: 'c2' });
    const watch = poller();
    // The child is listed first but waits for its parent, which closes in this round.
    await watch.pollOnce();
    expect(sequences()).toEqual([['000001']]);
    await watch.pollOnce();
    expect(sequences()).toEqual([['000001'], ['000002']]);
    expect(JSON.parse(readFileSync(checkpointFile, 'utf8')).shards).toEqual({
      parent: { after: '000001', done: true },
      child: { after: '000002' },
    });

    // The shards are reused until stale (describeEveryMs) or a shard closes; the stream's ARN until it is stale
    // (tableEveryMs), since DynamoDB Local's DescribeTable grows with the table.
    await watch.pollOnce();
    expect(dynamo.commandCalls(DescribeTableCommand)).toHaveLength(1);
    expect(streams.commandCalls(DescribeStreamCommand)).toHaveLength(2);
    dynamo.on(DescribeTableCommand).resolves({ Table: { LatestStreamArn: `${ARN}-new` } });
    const start = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(start + 60_000);
    await watch.pollOnce();
    expect(dynamo.commandCalls(DescribeTableCommand)).toHaveLength(1);
    expect(streams.commandCalls(DescribeStreamCommand)).toHaveLength(3);
    expect(streams.commandCalls(DescribeStreamCommand).at(-1)!.args[0].input.StreamArn).toBe(ARN);
    jest.spyOn(Date, 'now').mockReturnValue(start + 120_000);
    streams.on(DescribeStreamCommand).resolves({ StreamDescription: { Shards: [{ ShardId: 'fresh' }] } });
    streams.on(GetShardIteratorCommand, { ShardId: 'fresh' }).resolves({ ShardIterator: 'f' });
    streams.on(GetRecordsCommand, { ShardIterator: 'f' }).resolves({ Records: [], NextShardIterator: 'f' });
    await watch.pollOnce();
    expect(streams.commandCalls(GetShardIteratorCommand).at(-1)!.args[0].input).toMatchObject({
      StreamArn: `${ARN}-new`,
      ShardIteratorType: 'TRIM_HORIZON',
    });
    jest.restoreAllMocks();
  });

  it('forgets a shard read to its end once the stream no longer lists it', async () => {
    streams.on(DescribeStreamCommand).resolves({
      StreamDescription: { Shards: [{ ShardId: 'old' }, { ShardId: 'new', ParentShardId: 'old' }] },
    });
    streams.on(GetShardIteratorCommand, { ShardId: 'old' }).resolves({ ShardIterator: 'o' });
    streams.on(GetShardIteratorCommand, { ShardId: 'new' }).resolves({ ShardIterator: 'n' });
    streams
      .on(GetRecordsCommand, { ShardIterator: 'o' })
      .resolves({ Records: [change(1, 'REMOVE', 'HEAD')] })
      .on(GetRecordsCommand, { ShardIterator: 'n' })
      .resolves({ Records: [change(2, 'REMOVE', 'HEAD')], NextShardIterator: 'n2' })
      .on(GetRecordsCommand, { ShardIterator: 'n2' })
      .resolves({ Records: [], NextShardIterator: 'n2' });
    const watch = poller();
    await watch.pollOnce();
    await watch.pollOnce();
    expect(Object.keys(JSON.parse(readFileSync(checkpointFile, 'utf8')).shards).sort()).toEqual([
      'new',
      'old',
    ]);

    // Trimmed: the closed shard is no longer described, and the next checkpoint written no longer holds it.
    streams.on(DescribeStreamCommand).resolves({ StreamDescription: { Shards: [{ ShardId: 'new' }] } });
    streams
      .on(GetRecordsCommand, { ShardIterator: 'n2' })
      .resolves({ Records: [change(3, 'REMOVE', 'HEAD')], NextShardIterator: 'n3' })
      .on(GetRecordsCommand, { ShardIterator: 'n3' })
      .resolves({ Records: [], NextShardIterator: 'n3' });
    jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 60_000);
    await watch.pollOnce();
    jest.restoreAllMocks();
    expect(JSON.parse(readFileSync(checkpointFile, 'utf8')).shards).toEqual({ new: { after: '000003' } });
    expect(sequences().flat()).toEqual(['000001', '000002', '000003']);
  });

  it('waits for a table without a stream, asking again on the next round', async () => {
    dynamo.on(DescribeTableCommand).resolves({ Table: {} });
    const watch = poller();
    expect(await watch.pollOnce()).toBe(0);
    expect(streams.calls()).toHaveLength(0);
    dynamo.on(DescribeTableCommand).resolves({ Table: { LatestStreamArn: ARN } });
    streams
      .on(GetRecordsCommand)
      .resolves({ Records: [change(1, 'REMOVE', 'HEAD')], NextShardIterator: 'it-1' });
    streams
      .on(GetRecordsCommand, { ShardIterator: 'it-1' })
      .resolves({ Records: [], NextShardIterator: 'it-1' });
    expect(await watch.pollOnce()).toBe(1);
    expect(dynamo.commandCalls(DescribeTableCommand)).toHaveLength(2);
  });
});
