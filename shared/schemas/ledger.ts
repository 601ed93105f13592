import * as z from 'zod';
import { LEDGER_EVENT_TYPES } from '../ledger/event-types.js';
import { PageQuery, Timestamp, paged } from './common.js';
import { WellFormedString } from './storable-json.js';

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters');

export const LedgerEventType = z.enum(LEDGER_EVENT_TYPES).meta({ id: 'LedgerEventType' });

export const LedgerRecord = z
  .object({
    id: z.string(),
    firmId: z.string(),
    sequenceNumber: z.number().int().min(1),
    eventType: LedgerEventType,
    actorId: z.string(),
    actorName: z.string(),
    actorFcaRef: z.string().nullable(),
    documentHash: z
      .string()
      .meta({ description: 'sha256 hex of the document; empty string for non-document events' }),
    documentMetadata: z.record(z.string(), z.unknown()),
    previousHash: z.string().nullable(),
    recordHash: z.string(),
    chainHash: z.string(),
    signature: z.string().meta({ description: 'base64 DER ECDSA P-256 signature over the UTF-8 chainHash' }),
    publicKey: z.string().meta({ description: 'base64 DER SubjectPublicKeyInfo' }),
    timestamp: Timestamp,
    reviewJobId: z.string().nullable(),
  })
  .meta({ id: 'LedgerRecord', description: 'A signed ledger record (format: docs/ledger-format.md)' });

export const LedgerRecordPage = paged(LedgerRecord, 'LedgerRecordPage');

/** A date-time in any offset, normalised to the stored form (UTC, milliseconds) so it compares as text. */
const TimestampBound = Timestamp.transform((value) => new Date(value).toISOString());

export const ListRecordsQuery = PageQuery.extend({
  eventType: LedgerEventType.optional(),
  startDate: TimestampBound.optional().meta({
    description: 'Inclusive lower bound on timestamp (any offset)',
  }),
  endDate: TimestampBound.optional().meta({ description: 'Inclusive upper bound on timestamp (any offset)' }),
  actorId: WellFormedString.min(1).max(200).optional(),
  documentHash: Hex64.optional(),
  documentReference: WellFormedString.min(1).max(200).optional(),
  order: z
    .enum(['desc', 'asc'])
    .default('desc')
    .meta({ description: 'By sequence number; newest first by default' }),
}).refine((q) => !q.startDate || !q.endDate || q.startDate <= q.endDate, {
  message: 'startDate must not be after endDate',
  path: ['startDate'],
});
