/**
 * The embedded stack's stand-in for a DynamoDB stream event source mapping (docs/architecture.md §2, §6c):
 * polls DynamoDB Local's Streams API (DescribeStream, GetShardIterator, GetRecords, following shards as they
 * close and their children open), drops the changes the worker's filters would drop in AWS
 * (shared/workers/stream-filter.ts), and hands the rest, in stream order and in the Lambda event's shape, to the
 * same worker handler. Like the mapping it checkpoints (a JSON file in DATA_DIR, so a restarted stack goes on
 * where it stopped), retries from the first change a batch reports failed (500 ms, 1 s, 2 s, … up to 10 s), and
 * after `retryAttempts` gives the change up with an ERROR line (the on-failure queue in AWS). A poll that fails
 * (DynamoDB Local restarting, a table re-created with a new stream) is logged and tried again from the describe.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
  type _Record,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../../runtime/logger.js';
import { passesStreamFilters, type StreamFilter } from '../../workers/stream-filter.js';

export interface StreamPollerOptions {
  tableName: string;
  sortKeyAttribute: string;
  filters: readonly StreamFilter[];
  batchSize: number;
  retryAttempts: number;
  /** Where the position reached in each shard is kept between runs. */
  checkpointFile: string;
  /** Invokes the worker (in this thread or on an instance) with the event; its partial batch response, if any. */
  deliver: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;
  dynamo: Pick<DynamoDBClient, 'send'>;
  streams: Pick<DynamoDBStreamsClient, 'send'>;
  /** Pause after a round that found nothing new. @default 200 */
  idleMs?: number;
  /** First retry delay; doubles up to 10 s. @default 500 */
  retryBaseMs?: number;
  /**
   * How long the stream's shards (DescribeStream) are reused before they are read again; a shard read to its end
   * or a failed poll reads them again at once. @default 5000
   */
  describeEveryMs?: number;
  /**
   * How long the table's stream ARN (DescribeTable) is reused before it is read again; a failed poll reads it
   * again at once. DynamoDB Local's DescribeTable costs in proportion to the table's items
   * (9 ms at 17,000 changes, 39 ms at 104,000, on its one SQLite thread): read every 5 s it became the soak's
   * drifting tail (docs/benchmarks.md). A table re-created under a running stack has its new stream found within
   * this time, or at once when the old stream's reads fail. @default 60000
   */
  tableEveryMs?: number;
}

interface Checkpoint {
  streamArn: string | null;
  /** Per shard: the last sequence number handled, and whether the shard is closed and read to its end. */
  shards: Record<string, { after?: string; done?: boolean }>;
}

const GET_RECORDS_LIMIT = 1000;
/**
 * Progress over changes the filters dropped is saved at most this often: under load every page is such (the
 * service's own inserts and updates), and each save is a synchronous write and rename on the thread that serves
 * the stack's HTTP. A restart re-reads at most this much, which the filters drop again. Progress over a delivered
 * change, a shard's end, and close() save at once.
 */
const SAVE_FILTERED_EVERY_MS = 1000;
const MAX_RETRY_DELAY_MS = 10_000;

export class LocalStreamPoller {
  private checkpoint: Checkpoint;
  private readonly iterators = new Map<string, string>();
  private described: { streamArn: string; shards: Shard[]; at: number } | undefined;
  private table: { streamArn: string; at: number } | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private savedAt = 0;
  private unsaved = false;

  constructor(private readonly options: StreamPollerOptions) {
    this.checkpoint = readCheckpoint(options.checkpointFile);
  }

  /** Polls until close(). */
  start(): void {
    this.running ??= this.loop();
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
    if (this.unsaved) this.save(true);
  }

  /** One round over the stream's shards, each read to its current end; the number of changes delivered. */
  async pollOnce(): Promise<number> {
    const description = await this.describe();
    if (!description) return 0;
    const { streamArn, shards } = description;
    const known = new Set(shards.map((shard) => shard.ShardId));
    let delivered = 0;
    for (const shard of shards) {
      const id = shard.ShardId!;
      if (this.checkpoint.shards[id]?.done) continue;
      // A child shard waits until its parent is read to its end (the order of each item's changes).
      const parent = shard.ParentShardId;
      if (parent && known.has(parent) && !this.checkpoint.shards[parent]?.done) continue;
      delivered += await this.drain(streamArn, id);
    }
    return delivered;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let delivered: number;
      try {
        delivered = await this.pollOnce();
      } catch (error) {
        this.iterators.clear();
        this.described = undefined;
        this.table = undefined;
        logger.warn('Polling the ledger stream failed; trying again', { error: error as Error });
        await this.pause(1000);
        continue;
      }
      if (delivered === 0) {
        if (this.unsaved) this.save(false);
        await this.pause(this.options.idleMs ?? 200);
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resume) => {
      const timer = setTimeout(resume, ms);
      this.wake = () => {
        clearTimeout(timer);
        resume();
      };
    });
  }

  /**
   * The stream and its shards: the shards read again when older than `describeEveryMs`, the stream's ARN when
   * older than `tableEveryMs`.
   */
  private async describe(): Promise<{ streamArn: string; shards: Shard[] } | undefined> {
    const now = Date.now();
    if (this.described && now - this.described.at < (this.options.describeEveryMs ?? 5000))
      return this.described;
    const streamArn = await this.streamArn(now);
    if (!streamArn) return undefined;
    if (this.checkpoint.streamArn !== streamArn) {
      // A new stream (a new data directory, or the table re-created): start at its beginning.
      this.checkpoint = { streamArn, shards: {} };
      this.iterators.clear();
    }
    const shards = await this.shards(streamArn);
    // A shard read to its end and no longer listed (trimmed after 24 h) is forgotten: the checkpoint, rewritten
    // after every page, would otherwise keep every shard the stream ever had.
    const listed = new Set(shards.map((shard) => shard.ShardId));
    for (const [id, state] of Object.entries(this.checkpoint.shards))
      if (state.done && !listed.has(id)) delete this.checkpoint.shards[id];
    this.described = { streamArn, shards, at: now };
    return this.described;
  }

  private async streamArn(now: number): Promise<string | undefined> {
    if (this.table && now - this.table.at < (this.options.tableEveryMs ?? 60_000))
      return this.table.streamArn;
    const { Table } = await this.options.dynamo.send(
      new DescribeTableCommand({ TableName: this.options.tableName }),
    );
    const streamArn = Table?.LatestStreamArn;
    // A table without a stream yet is asked again on the next round.
    this.table = streamArn ? { streamArn, at: now } : undefined;
    return streamArn;
  }

  private async shards(streamArn: string): Promise<Shard[]> {
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const { StreamDescription } = await this.options.streams.send(
        new DescribeStreamCommand({
          StreamArn: streamArn,
          ...(start ? { ExclusiveStartShardId: start } : {}),
        }),
      );
      shards.push(...(StreamDescription?.Shards ?? []));
      start = StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return shards;
  }

  private async iterator(streamArn: string, shardId: string, fresh = false): Promise<string | undefined> {
    const cached = this.iterators.get(shardId);
    if (cached && !fresh) return cached;
    const after = this.checkpoint.shards[shardId]?.after;
    const request = (from: 'AFTER_SEQUENCE_NUMBER' | 'TRIM_HORIZON') =>
      this.options.streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ShardIteratorType: from,
          ...(from === 'AFTER_SEQUENCE_NUMBER' ? { SequenceNumber: after } : {}),
        }),
      );
    let answer;
    try {
      answer = await request(after ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON');
    } catch (error) {
      if (!(error instanceof TrimmedDataAccessException)) throw error;
      // The position is older than what the stream keeps: from the oldest change it still has.
      answer = await request('TRIM_HORIZON');
    }
    return answer.ShardIterator;
  }

  /** Reads one shard to its current end, delivering what passes the filters; the number delivered. */
  private async drain(streamArn: string, shardId: string): Promise<number> {
    let delivered = 0;
    let iterator = await this.iterator(streamArn, shardId);
    while (iterator && !this.stopped) {
      let page;
      try {
        page = await this.options.streams.send(
          new GetRecordsCommand({ ShardIterator: iterator, Limit: GET_RECORDS_LIMIT }),
        );
      } catch (error) {
        if (!(error instanceof ExpiredIteratorException)) throw error;
        iterator = await this.iterator(streamArn, shardId, true);
        continue;
      }
      const records = page.Records ?? [];
      const wanted = records
        .filter((record) => passesStreamFilters(this.options.filters, record, this.options.sortKeyAttribute))
        .map((record) => lambdaRecord(record, streamArn));
      for (let start = 0; start < wanted.length; start += this.options.batchSize)
        await this.deliver(wanted.slice(start, start + this.options.batchSize));
      delivered += wanted.length;
      const state = (this.checkpoint.shards[shardId] ??= {});
      const last = records[records.length - 1]?.dynamodb?.SequenceNumber;
      if (last) state.after = last;
      iterator = page.NextShardIterator;
      if (!iterator) {
        state.done = true;
        this.iterators.delete(shardId);
        // Its children, if any, are listed by the next description.
        this.described = undefined;
      } else this.iterators.set(shardId, iterator);
      if (wanted.length > 0 || state.done) this.save(true);
      else if (records.length > 0) this.save(false);
      if (records.length === 0) break;
    }
    return delivered;
  }

  /** Saves the checkpoint now, or (`now` false) once SAVE_FILTERED_EVERY_MS have passed since the last save. */
  private save(now: boolean): void {
    if (!now && Date.now() - this.savedAt < SAVE_FILTERED_EVERY_MS) {
      this.unsaved = true;
      return;
    }
    saveCheckpoint(this.options.checkpointFile, this.checkpoint);
    this.savedAt = Date.now();
    this.unsaved = false;
  }

  /** One batch, retried from its first failed change, then given up change by change after the retries. */
  private async deliver(batch: DynamoDBRecord[]): Promise<void> {
    let pending = batch;
    for (let attempt = 0; pending.length > 0; attempt++) {
      let failedAt: number;
      try {
        const response = await this.options.deliver({ Records: pending });
        const failed = response?.batchItemFailures?.[0]?.itemIdentifier;
        failedAt =
          failed === undefined ? -1 : pending.findIndex((r) => r.dynamodb?.SequenceNumber === failed);
        // An identifier the batch does not hold fails the whole batch, as the event source mapping treats it.
        if (failed !== undefined && failedAt < 0) failedAt = 0;
      } catch (error) {
        logger.error('A stream worker invocation failed', { error: error as Error });
        failedAt = 0;
      }
      if (failedAt < 0) return;
      pending = pending.slice(failedAt);
      if (attempt >= this.options.retryAttempts) {
        // The on-failure destination of AWS: the change is given up, and said so.
        logger.error('A stream change failed after every retry and was given up', {
          table: this.options.tableName,
          eventName: pending[0]!.eventName,
          keys: pending[0]!.dynamodb?.Keys,
          sequenceNumber: pending[0]!.dynamodb?.SequenceNumber,
        });
        pending = pending.slice(1);
        attempt = -1;
        continue;
      }
      await this.pause(Math.min(MAX_RETRY_DELAY_MS, (this.options.retryBaseMs ?? 500) * 2 ** attempt));
      if (this.stopped) return;
    }
  }
}

/** A GetRecords record in the shape Lambda gives a stream worker (dates as Unix seconds). */
export function lambdaRecord(record: _Record, streamArn: string): DynamoDBRecord {
  const change = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion ?? 'local',
    eventSourceARN: streamArn,
    dynamodb: {
      ...(change.ApproximateCreationDateTime
        ? { ApproximateCreationDateTime: Math.floor(change.ApproximateCreationDateTime.getTime() / 1000) }
        : {}),
      Keys: change.Keys,
      ...(change.NewImage ? { NewImage: change.NewImage } : {}),
      ...(change.OldImage ? { OldImage: change.OldImage } : {}),
      SequenceNumber: change.SequenceNumber,
      SizeBytes: change.SizeBytes,
      StreamViewType: change.StreamViewType,
    } as DynamoDBRecord['dynamodb'],
  };
}

function readCheckpoint(file: string): Checkpoint {
  if (!existsSync(file)) return { streamArn: null, shards: {} };
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Checkpoint;
  } catch {
    return { streamArn: null, shards: {} };
  }
}

function saveCheckpoint(file: string, checkpoint: Checkpoint): void {
  writeFileSync(`${file}.tmp`, JSON.stringify(checkpoint));
  renameSync(`${file}.tmp`, file);
}

/** The clients of a DynamoDB Local endpoint. */
export function localStreamClients(endpoint: string) {
  const config = {
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  };
  return { dynamo: new DynamoDBClient(config), streams: new DynamoDBStreamsClient(config) };
}
