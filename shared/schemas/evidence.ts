import * as z from 'zod';
import {
  EVIDENCE_BUNDLE_FORMAT,
  EVIDENCE_BUNDLE_VERSION,
  MAX_BUNDLE_RECORD_BYTES,
  MAX_BUNDLE_RECORDS,
} from '../ledger/evidence-bundle.js';
import { Timestamp } from './common.js';
import { CertificateMetadata } from './certificates.js';
import { LedgerRecord } from './ledger.js';

/** Sequence numbers are stored as 12 digits (REC#<12-digit seq>). */
const Sequence = z.coerce.number().int().min(1).max(999_999_999_999);

export const ExportEvidenceQuery = z
  .object({
    fromSequence: Sequence.default(1).meta({ description: 'First sequence number (inclusive); default 1' }),
    toSequence: Sequence.optional().meta({
      description:
        'Last sequence number (inclusive); default the chain head. A range past the head is not an error',
    }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_BUNDLE_RECORDS)
      .default(MAX_BUNDLE_RECORDS)
      .meta({ description: `At most this many records, 1 to ${MAX_BUNDLE_RECORDS}` }),
  })
  .refine((q) => q.toSequence === undefined || q.fromSequence <= q.toSequence, {
    message: 'fromSequence must not be after toSequence',
    path: ['fromSequence'],
  });

const KeyEntry = z.object({
  fingerprint: z.string().meta({ description: 'hex SHA-256 of the DER SubjectPublicKeyInfo' }),
  publicKey: z.string().meta({ description: 'base64 DER SubjectPublicKeyInfo' }),
  algorithm: z.literal('ECDSA_SHA_256'),
  keySpec: z.literal('ECC_NIST_P256'),
  validFrom: Timestamp,
  validUntil: Timestamp.nullable(),
  revokedFrom: Timestamp.nullable(),
  endorsement: z.object({ signedBy: z.string(), signature: z.string() }).nullable(),
});

export const EvidenceBundle = z
  .object({
    format: z.literal(EVIDENCE_BUNDLE_FORMAT),
    version: z.literal(EVIDENCE_BUNDLE_VERSION),
    firmId: z.string(),
    range: z.object({
      fromSequence: z.number().int().min(1),
      toSequence: z.number().int().min(1).nullable(),
    }),
    headSequenceNumber: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'The chain head when the bundle was made' }),
    nextFromSequence: z.number().int().min(2).nullable().meta({
      description: 'Cursor: ask again with fromSequence set to it for the rest of the range; null at its end',
    }),
    predecessor: LedgerRecord.nullable().meta({
      description:
        "The record before fromSequence (its chainHash anchors the first record's link); null from 1",
    }),
    records: z.array(LedgerRecord),
    keyHistory: z.object({ version: z.number().int().min(1), keys: z.array(KeyEntry) }),
    generatedAt: Timestamp,
  })
  .meta({
    id: 'EvidenceBundle',
    description: `A self-contained, offline-verifiable range of the firm's chain (docs/ledger-format.md, "Evidence bundles"): at most ${MAX_BUNDLE_RECORDS} records and ${MAX_BUNDLE_RECORD_BYTES} bytes of record JSON`,
  });

export const RecordEvidenceBundle = EvidenceBundle.extend({
  certificate: z
    .object({
      id: z.string(),
      ledgerRecordId: z.string(),
      firmId: z.string(),
      firmName: z.string(),
      firmFrnNumber: z.string(),
      issuedAt: Timestamp,
      verificationUrl: z.string(),
      metadata: CertificateMetadata,
      sequenceNumber: z.number().int().min(1),
      recordHash: z.string(),
      chainHash: z.string(),
    })
    .nullable()
    .meta({
      description: 'The certificate as issued (what it prints and certified); null when the record has none',
    }),
}).meta({
  id: 'RecordEvidenceBundle',
  description: 'The evidence bundle of one record (its range is that record), with its certificate',
});
