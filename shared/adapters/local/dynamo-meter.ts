import type { DocumentDb } from '../../store/dynamo.js';

/**
 * The embedded stack's DynamoDB read meter (LOCAL_DYNAMO_METRICS=true; bench/reads): how many read calls the
 * stack's handlers and workers made and how many items DynamoDB read for them (ScannedCount of a Query or
 * Scan, which counts the items a FilterExpression drops; 1 for a GetItem that found its item; the items of a
 * BatchGet or TransactGet), across every instance: the counters live in shared memory, like the Sign
 * counters (signer-quota.ts). Read through GET /__local/metrics.
 */
const CALLS = 0;
const ITEMS = 1;
const SLOTS = 2;

export interface DynamoReadCounts {
  /** Read calls (GetItem, Query, Scan, BatchGetItem, TransactGetItems). */
  dynamoReadCalls: number;
  /** Items DynamoDB read for them (ScannedCount summed). */
  dynamoItemsRead: number;
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

  /** Counts one command's answer, if the command reads. */
  count(command: unknown, output: unknown): void {
    const name = (command as { constructor?: { name?: string } }).constructor?.name?.replace(/Command$/, '');
    if (!name || !READS.has(name)) return;
    Atomics.add(this.cells, CALLS, 1n);
    const items = itemsRead(output as Record<string, unknown>);
    if (items > 0) Atomics.add(this.cells, ITEMS, BigInt(items));
  }

  counts(): DynamoReadCounts {
    return {
      dynamoReadCalls: Number(Atomics.load(this.cells, CALLS)),
      dynamoItemsRead: Number(Atomics.load(this.cells, ITEMS)),
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

/** A document client whose read answers are counted by `meter`. */
export function meteredDb(db: DocumentDb, meter: DynamoMeter): DocumentDb {
  const send = async (command: Parameters<DocumentDb['send']>[0]) => {
    const output: unknown = await db.send(command);
    meter.count(command, output);
    return output;
  };
  return { send: send as DocumentDb['send'] };
}
