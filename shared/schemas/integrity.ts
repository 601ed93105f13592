import * as z from 'zod';
import { Timestamp } from './common.js';
import { LedgerRecord } from './ledger.js';

const Actor = z.object({ id: z.string(), name: z.string(), fcaRef: z.string().nullable() });

export const BrokenRecord = z
  .object({
    sequenceNumber: z.number().int(),
    recordId: z.string().nullable(),
    problems: z.array(
      z.object({
        code: z.enum([
          'RECORD_HASH_MISMATCH',
          'CHAIN_HASH_MISMATCH',
          'BROKEN_LINK',
          'BAD_SIGNATURE',
          'UNTRUSTED_KEY',
          'KEY_REVOKED',
          'KEY_NOT_VALID_AT_TIMESTAMP',
          'MISSING_RECORD',
          'SEQUENCE_MISMATCH',
          'FIRM_MISMATCH',
        ]),
        message: z.string(),
      }),
    ),
  })
  .meta({ id: 'BrokenRecord' });

export const Verification = z
  .object({
    id: z.string(),
    mode: z.enum(['full', 'incremental']),
    status: z.enum(['RUNNING', 'COMPLETED']),
    trigger: z.enum(['api', 'background']),
    fromSequence: z.number().int(),
    toSequence: z.number().int(),
    progress: z.object({
      checkedThrough: z.number().int(),
      total: z.number().int(),
      percent: z.number().int(),
    }),
    recordsChecked: z.number().int(),
    brokenCount: z.number().int(),
    valid: z.boolean().nullable().meta({ description: 'null while running' }),
    startedAt: Timestamp,
    completedAt: Timestamp.nullable(),
    ledgerRecordId: z
      .string()
      .nullable()
      .meta({ description: 'The CHAIN_VERIFIED record of a completed run' }),
    backgroundVerificationId: z
      .string()
      .nullable()
      .meta({ description: 'The full re-verification started alongside an incremental run' }),
    requestedBy: Actor,
  })
  .meta({ id: 'Verification' });

export const VerificationResult = z
  .object({
    complete: z.boolean(),
    valid: z.boolean().nullable(),
    checkedFrom: z.number().int(),
    checkedThrough: z.number().int(),
    recordsChecked: z.number().int(),
    brokenCount: z.number().int(),
    brokenRecords: z.array(BrokenRecord).meta({ description: 'The first 200 broken records' }),
  })
  .meta({ id: 'VerificationResult' });

export const VerifyResponse = z
  .object({ verification: Verification, result: VerificationResult })
  .meta({ id: 'VerifyResponse' });

export const IntegrityStatus = z
  .object({
    firmId: z.string(),
    totalRecords: z.number().int(),
    lastVerification: Verification.extend({ result: VerificationResult }).nullable(),
    recentVerifications: z.array(Verification),
  })
  .meta({ id: 'IntegrityStatus' });

const FieldDiff = z.object({ field: z.string(), database: z.unknown(), immutable: z.unknown() });

export const Discrepancy = z
  .object({
    recordId: z.string().nullable(),
    sequenceNumber: z.number().int(),
    database: LedgerRecord.nullable().meta({ description: 'null when the row was deleted' }),
    immutable: LedgerRecord.nullable(),
    diffs: z.array(FieldDiff),
  })
  .meta({ id: 'Discrepancy' });

export const RestoreBody = z.strictObject({
  confirm: z.literal(true, { error: 'confirm must be true' }),
});

export const RestoreResult = z
  .object({
    restored: z.boolean(),
    action: z.enum(['OVERWRITTEN', 'REINSERTED', 'NONE']),
    recordId: z.string(),
    sequenceNumber: z.number().int(),
    fieldsRestored: z.array(z.string()),
    repairRecordId: z
      .string()
      .nullable()
      .meta({ description: 'The CHAIN_REPAIRED record, when a repair was made' }),
    message: z.string().nullable(),
  })
  .meta({ id: 'RestoreResult' });

export const SequenceParam = z.object({
  sequenceNumber: z.coerce.number().int().min(1).max(999_999_999_999),
});

export const BackupStatus = z
  .object({
    healthy: z.boolean(),
    database: z.object({ count: z.number().int() }),
    immutableStorage: z.object({ count: z.number().int() }),
    countsMatch: z.boolean(),
    latestRecord: z.object({ sequenceNumber: z.number().int(), timestamp: Timestamp }).nullable(),
    spotChecks: z.array(
      z.object({ recordId: z.string().nullable(), sequenceNumber: z.number().int(), match: z.boolean() }),
    ),
    checkedAt: Timestamp,
    reconciledAt: Timestamp.nullable().describe(
      'When the background reconciliation last walked every row and immutable copy (null: not yet); the counts are its findings plus what was appended since',
    ),
    reconciliation: z
      .object({
        reconciledAt: Timestamp,
        headSequence: z
          .number()
          .int()
          .describe('The reconciliation checked sequence numbers 1..headSequence'),
        missingRowCount: z
          .number()
          .int()
          .describe('Positions without a database row (restores since are taken off)'),
        missingCopyCount: z
          .number()
          .int()
          .describe('Positions without an immutable copy (and without a pending outbox entry)'),
        missingRows: z.array(z.number().int()).describe('The first 100 of them, ascending'),
        missingCopies: z.array(z.number().int()).describe('The first 100 of them, ascending'),
      })
      .nullable(),
    pendingCopies: z
      .number()
      .int()
      .describe(
        'Records whose immutable copy is not confirmed yet: outbox entry present and no copy in the store',
      ),
    tampering: z
      .object({
        detected: z.boolean().describe('A record row was found changed or removed outside the service'),
        sequenceNumbers: z
          .array(z.number().int())
          .describe('The flagged sequence numbers, ascending (the first 100); restore clears each'),
        more: z.boolean().describe('More rows are flagged than listed'),
        flags: z.array(
          z.object({
            sequenceNumber: z.number().int(),
            change: z.enum(['REMOVED', 'MODIFIED']),
            fieldsChanged: z
              .array(z.string())
              .describe('Record fields and index attributes that differ from the immutable copy'),
            detectedAt: Timestamp,
            detectionRecordId: z
              .string()
              .nullable()
              .describe('The TAMPERING_DETECTED record written with the flag (null: the chain had no head)'),
          }),
        ),
      })
      .describe(
        'Rows the tamper watch (the ledger table stream) found changed or removed outside the service, within seconds; healthy is false while any stands',
      ),
    chainHeadMissing: z
      .boolean()
      .describe(
        'The chain head is gone although record rows, flags, the reconciliation or the immutable copies say the ledger has records; healthy is false',
      ),
    problems: z.array(z.string()).describe('What makes the status unhealthy beyond the counts, in words'),
  })
  .meta({ id: 'BackupStatus' });
