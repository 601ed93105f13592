/**
 * The yardstick of `ledgerctl seed`'s speed (issue 14, part 4): raw BatchWriteItem throughput against the same
 * DynamoDB Local, with items of a given size, 25 per call and `width` calls in flight, nothing else done. The
 * items go to a partition of their own (`BENCHRAW#<run>`) in the ledger table, which no firm reads, and carry an
 * `id` like record rows, so DynamoDB maintains the same index entry per item.
 */
import { randomBytes } from 'node:crypto';
import type { Deps } from '../../shared/runtime/deps.js';
import { BulkWriter } from '../../shared/store/bulk-write.js';

export interface RawRate {
  items: number;
  itemBytes: number;
  seconds: number;
  itemsPerSecond: number;
}

export async function rawBatchWriteRate(
  deps: Deps,
  options: { items: number; itemBytes: number; width?: number },
): Promise<RawRate> {
  const run = randomBytes(6).toString('hex');
  const filler = 'x'.repeat(Math.max(0, options.itemBytes - 80));
  const writer = new BulkWriter(deps, { width: options.width ?? 8 });
  const start = performance.now();
  for (let i = 0; i < options.items; i += 500) {
    const items = Array.from({ length: Math.min(500, options.items - i) }, (_, k) => ({
      pk: `BENCHRAW#${run}`,
      sk: `REC#${String(i + k).padStart(12, '0')}`,
      // An id, as record rows carry: the ledger table's byRecordId index holds every item that has one.
      id: `raw_${run}_${i + k}`,
      filler,
    }));
    await writer.put(deps.tables.ledger, items);
  }
  await writer.flush();
  const seconds = (performance.now() - start) / 1000;
  return {
    items: options.items,
    itemBytes: options.itemBytes,
    seconds: Math.round(seconds * 100) / 100,
    itemsPerSecond: Math.round(options.items / seconds),
  };
}
