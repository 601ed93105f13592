import { createHash } from 'node:crypto';
import type { LedgerRecord } from '../ledger/record.js';
import { keys, padSequence } from './keys.js';
import { LEDGER_RECORD_INDEXES } from './tables.js';

/*
 * The index attributes of a record row (issue 14): what the records list's global secondary indexes
 * (LEDGER_RECORD_INDEXES) are keyed by. They are storage, not record: never hashed, signed, copied to the
 * immutable store or returned (rows are read field by field, RECORD_FIELDS). Every writer of a record row takes
 * them from recordIndexAttributes (the group commit, restore, `ledgerctl seed`, `ledgerctl backfill indexes`).
 */

/** An index key part of a free-text value: as is when short, else its SHA-256 (index keys have size limits). */
function valuePart(value: string): string {
  return Buffer.byteLength(value) <= 512
    ? `=${value}`
    : `~${createHash('sha256').update(value).digest('hex')}`;
}

/** The partition key of the records of `firmId` whose filter attribute equals `value` (or of all, by time). */
export const recordIndexKey = {
  byTime: (firmId: string) => keys.firmPk(firmId),
  eventType: (firmId: string, eventType: string) => `${keys.firmPk(firmId)}#${valuePart(eventType)}`,
  actorId: (firmId: string, actorId: string) => `${keys.firmPk(firmId)}#${valuePart(actorId)}`,
  documentHash: (firmId: string, documentHash: string) => `${keys.firmPk(firmId)}#${valuePart(documentHash)}`,
  documentReference: (firmId: string, reference: string) => `${keys.firmPk(firmId)}#${valuePart(reference)}`,
};

/** The sort key shared by the record indexes: `<timestamp>#<12-digit seq>` (timestamps never go back). */
export const recordIndexSortKey = (timestamp: string, sequenceNumber: number) =>
  `${timestamp}#${padSequence(sequenceNumber)}`;

export type RecordIndexAttributes = Partial<Record<string, string>>;

/**
 * The index attributes a record row carries: firm and time always; event type, actor, document hash and
 * document reference (documentMetadata.documentReference) when the record has them as strings. The one
 * function every writer of record rows uses.
 */
export function recordIndexAttributes(
  record: Pick<
    LedgerRecord,
    'firmId' | 'sequenceNumber' | 'timestamp' | 'eventType' | 'actorId' | 'documentHash' | 'documentMetadata'
  >,
): RecordIndexAttributes {
  const { firmId } = record;
  const attributes: RecordIndexAttributes = {
    [LEDGER_RECORD_INDEXES.byTime.partitionKey]: recordIndexKey.byTime(firmId),
    [LEDGER_RECORD_INDEXES.byTime.sortKey]: recordIndexSortKey(record.timestamp, record.sequenceNumber),
  };
  const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined);
  const eventType = text(record.eventType);
  const actorId = text(record.actorId);
  const documentHash = text(record.documentHash);
  const reference = text((record.documentMetadata as Record<string, unknown> | null)?.documentReference);
  if (eventType)
    attributes[LEDGER_RECORD_INDEXES.eventType.partitionKey] = recordIndexKey.eventType(firmId, eventType);
  if (actorId)
    attributes[LEDGER_RECORD_INDEXES.actorId.partitionKey] = recordIndexKey.actorId(firmId, actorId);
  if (documentHash)
    attributes[LEDGER_RECORD_INDEXES.documentHash.partitionKey] = recordIndexKey.documentHash(
      firmId,
      documentHash,
    );
  if (reference)
    attributes[LEDGER_RECORD_INDEXES.documentReference.partitionKey] = recordIndexKey.documentReference(
      firmId,
      reference,
    );
  return attributes;
}

/** The full row of a record: its key, its fields and its index attributes. */
export function recordRow(record: LedgerRecord): Record<string, unknown> {
  return {
    ...keys.ledgerRecord(record.firmId, record.sequenceNumber),
    ...record,
    ...recordIndexAttributes(record),
  };
}
