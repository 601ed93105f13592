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
    consistencyFrom: Sequence.optional().meta({
      description:
        "A tree size M of a checkpoint you kept: the bundle's log.consistency is then the RFC 6962 consistency proof from M to the bundle's checkpoint (`verify-evidence --since`). At most that checkpoint's size, else 400",
    }),
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

const EvidenceLog = z
  .object({
    origin: z.string().meta({ description: 'The checkpoint origin, `<host[:port]>/ledger/<firmId>`' }),
    checkpoint: z.string().meta({
      description:
        'The C2SP signed note of the checkpoint: text, the 0x02 ECDSA and 0x01 Ed25519 log signatures, then any witness cosignatures',
    }),
    signedAt: Timestamp.meta({ description: 'When the log signed it: picks the keys by their windows' }),
    checkpointKeys: z
      .array(
        z.object({
          publicKey: z.string().meta({ description: 'base64 of the 32-byte Ed25519 public key' }),
          algorithm: z.literal('ED25519_SHA_512'),
          keySpec: z.literal('ECC_NIST_EDWARDS25519'),
          validFrom: Timestamp,
          validUntil: Timestamp.nullable(),
        }),
      )
      .meta({ description: 'The checkpoint-key history, oldest first' }),
    proofs: z.array(z.object({ sequenceNumber: z.number().int().min(1), hashes: z.array(z.string()) })).meta({
      description:
        "Each covered record's RFC 6962 inclusion hashes (base64); its C2SP tlog-proof is `c2sp.org/tlog-proof@v1`, `index <sequenceNumber − 1>`, the hashes, a blank line, the checkpoint",
    }),
    uncoveredFromSequence: z.number().int().min(1).nullable().meta({
      description:
        'The first record of the bundle not yet in a checkpoint (after a bounded wait); null: all are',
    }),
    consistency: z
      .object({ fromSize: z.number().int().min(1), hashes: z.array(z.string()) })
      .nullable()
      .meta({
        description: 'With consistencyFrom=M: the consistency proof from tree size M to the checkpoint',
      }),
  })
  .nullable()
  .meta({
    description:
      "The records' place in the firm's verifiable log (docs/ledger-format.md §12); null while the log has no checkpoint",
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
    log: EvidenceLog,
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
