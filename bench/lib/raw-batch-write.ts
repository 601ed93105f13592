/**
 * The yardstick of `ledgerctl seed`'s speed (issue 14, part 4): raw BatchWriteItem throughput against the same
 * DynamoDB Local, 25 items per call and `width` calls in flight, nothing else done (no hashing, signing or
 * copies). The items are record rows as the store builds them (recordRow: the record's fields and its index
 * attributes, so DynamoDB maintains the same index entries per item), of about `itemBytes` bytes, for a made-up
 * firm `benchraw_<run>` that no request reads.
 */
import { randomBytes } from 'node:crypto';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import type { Deps } from '../../shared/runtime/deps.js';
import { BulkWriter } from '../../shared/store/bulk-write.js';
import { recordRow } from '../../shared/store/record-index.js';

export interface RawRate {
  items: number;
  itemBytes: number;
  seconds: number;
  itemsPerSecond: number;
}

const EVENT_TYPES = [
  'DOCUMENT_SUBMITTED',
  'REVIEW_STARTED',
  'REVIEW_COMPLETED',
  'DOCUMENT_APPROVED',
] as const;

function rawRecord(firmId: string, sequenceNumber: number, padding: string): LedgerRecord {
  const hex = randomBytes(32).toString('hex');
  return {
    id: `rec_raw${String(sequenceNumber).padStart(19, '0')}`,
    firmId,
    sequenceNumber,
    eventType: EVENT_TYPES[sequenceNumber % EVENT_TYPES.length]!,
    actorId: `usr_raw${sequenceNumber % 7}`,
    actorName: 'Raw Bench',
    actorFcaRef: null,
    documentHash: hex,
    documentMetadata: { documentReference: `DOC-${sequenceNumber >> 2}`, padding },
    timestamp: new Date(Date.UTC(2026, 0, 1) + sequenceNumber * 1000).toISOString(),
    reviewJobId: null,
    previousHash: hex,
    recordHash: hex,
    chainHash: hex,
    signature: randomBytes(71).toString('base64'),
    publicKey: randomBytes(91).toString('base64'),
  };
}

export async function rawBatchWriteRate(
  deps: Deps,
  options: { items: number; itemBytes: number; width?: number },
): Promise<RawRate> {
  const firmId = `benchraw_${randomBytes(6).toString('hex')}`;
  const base = JSON.stringify(recordRow(rawRecord(firmId, 1, ''))).length;
  const padding = 'x'.repeat(Math.max(0, options.itemBytes - base));
  const writer = new BulkWriter(deps, { width: options.width ?? 8 });
  const start = performance.now();
  for (let i = 0; i < options.items; i += 500) {
    const rows = Array.from({ length: Math.min(500, options.items - i) }, (_, k) =>
      recordRow(rawRecord(firmId, i + k + 1, padding)),
    );
    await writer.put(deps.tables.ledger, rows);
  }
  await writer.flush();
  const seconds = (performance.now() - start) / 1000;
  return {
    items: options.items,
    itemBytes: Math.max(base, options.itemBytes),
    seconds: Math.round(seconds * 100) / 100,
    itemsPerSecond: Math.round(options.items / seconds),
  };
}
