import type { DocumentDb } from '../../store/dynamo.js';

/**
 * The embedded stack's DynamoDB meter (LOCAL_DYNAMO_METRICS=true; bench/reads, bench/log): how many read calls the
 * stack's handlers and workers made and how many items DynamoDB read for them (ScannedCount of a Query or
 * Scan, which counts the items a FilterExpression drops; 1 for a GetItem that found its item; the items of a
 * BatchGet or TransactGet), and how many write calls they made (a refused condition included), across every
 * instance: the counters live in shared memory, like the Sign counters (signer-quota.ts). It also times every
 * call (reads and writes, from the send to the answer or the refusal: DynamoDB Local's latency as the stack sees
 * it), so a bench can tell a slower DynamoDB from a slower stack. Read through GET /__local/metrics.
 */
const CALLS = 0;
const ITEMS = 1;
const WRITES = 2;
const TIMED = 3;
const MICROS = 4;
const SLOW = 5;
const SLOTS = 6;
/** A call that took longer than this counts as slow. */
export const SLOW_CALL_MS = 100;

export interface DynamoCounts {
  /** Read calls (GetItem, Query, Scan, BatchGetItem, TransactGetItems). */
  dynamoReadCalls: number;
  /** Items DynamoDB read for them (ScannedCount summed). */
  dynamoItemsRead: number;
  /** Write calls (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems), answered or refused. */
  dynamoWriteCalls: number;
  /** Every call timed (reads, writes and any other command), answered or refused. */
  dynamoCallsTimed: number;
  /** Their time from send to answer, summed, in microseconds. */
  dynamoCallMicros: number;
  /** Those that took longer than SLOW_CALL_MS. */
  dynamoSlowCalls: number;
}

const READS = new Set([
  'Get',
  'GetItem',
  'Query',
  'Scan',
  'BatchGet',
  'BatchGetItem',
  'TransactGet',
  'TransactGetItems',
]);

const WRITE_NAMES = new Set([
  'Put',
  'PutItem',
  'Update',
  'UpdateItem',
  'Delete',
  'DeleteItem',
  'BatchWrite',
  'BatchWriteItem',
  'TransactWrite',
  'TransactWriteItems',
]);

const commandName = (command: unknown) =>
  (command as { constructor?: { name?: string } }).constructor?.name?.replace(/Command$/, '');

export class DynamoMeter {
  private readonly cells: BigInt64Array;

  private constructor(readonly buffer: SharedArrayBuffer) {
    this.cells = new BigInt64Array(buffer);
  }

  static create(): DynamoMeter {
    return new DynamoMeter(new SharedArrayBuffer(SLOTS * BigInt64Array.BYTES_PER_ELEMENT));
  }

  /** The meter another thread created (its `buffer`, passed in workerData). */
  static attach(buffer: SharedArrayBuffer): DynamoMeter {
    return new DynamoMeter(buffer);
  }

  /** Counts one write command as it is sent (whatever its answer), if the command writes. */
  countWrite(command: unknown): void {
    const name = commandName(command);
    if (name && WRITE_NAMES.has(name)) Atomics.add(this.cells, WRITES, 1n);
  }

  /** Counts one command's answer, if the command reads. */
  count(command: unknown, output: unknown): void {
    const name = commandName(command);
    if (!name || !READS.has(name)) return;
    Atomics.add(this.cells, CALLS, 1n);
    const items = itemsRead(output as Record<string, unknown>);
    if (items > 0) Atomics.add(this.cells, ITEMS, BigInt(items));
  }

  /** Times one call, answered or refused. */
  time(ms: number): void {
    Atomics.add(this.cells, TIMED, 1n);
    Atomics.add(this.cells, MICROS, BigInt(Math.round(ms * 1000)));
    if (ms > SLOW_CALL_MS) Atomics.add(this.cells, SLOW, 1n);
  }

  counts(): DynamoCounts {
    const cell = (index: number) => Number(Atomics.load(this.cells, index));
    return {
      dynamoReadCalls: cell(CALLS),
      dynamoItemsRead: cell(ITEMS),
      dynamoWriteCalls: cell(WRITES),
      dynamoCallsTimed: cell(TIMED),
      dynamoCallMicros: cell(MICROS),
      dynamoSlowCalls: cell(SLOW),
    };
  }
}

function itemsRead(output: Record<string, unknown> | undefined): number {
  if (!output) return 0;
  if (typeof output.ScannedCount === 'number') return output.ScannedCount;
  if ('Item' in output) return output.Item ? 1 : 0;
  const responses = output.Responses;
  if (Array.isArray(responses)) return responses.filter((r) => (r as { Item?: unknown }).Item).length;
  if (responses && typeof responses === 'object')
    return Object.values(responses as Record<string, unknown[]>).reduce((n, list) => n + list.length, 0);
  return 0;
}

/** A document client whose reads (their answers) and writes (their calls) are counted, and every call timed, by `meter`. */
export function meteredDb(db: DocumentDb, meter: DynamoMeter): DocumentDb {
  const send = async (command: Parameters<DocumentDb['send']>[0]) => {
    meter.countWrite(command);
    const started = performance.now();
    let output: unknown;
    try {
      output = await db.send(command);
    } finally {
      meter.time(performance.now() - started);
    }
    meter.count(command, output);
    return output;
  };
  return { send: send as DocumentDb['send'] };
}
