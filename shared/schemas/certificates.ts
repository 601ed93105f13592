import * as z from 'zod';
import { LedgerEventType } from './ledger.js';
import { Timestamp } from './common.js';
import { WellFormedString } from './storable-json.js';

export const CertificateIdParam = z.object({ certificateId: WellFormedString.min(1).max(200) });

const Field = z.object({ label: z.string(), value: z.string(), monospace: z.boolean().optional() });

export const CertificateMetadata = z
  .object({
    eventType: LedgerEventType,
    eventLabel: z.string(),
    statusPill: z
      .object({ label: z.string(), tone: z.enum(['positive', 'caution', 'negative', 'neutral']) })
      .nullable(),
    sections: z.array(z.object({ heading: z.string(), fields: z.array(Field) })),
  })
  .meta({ id: 'CertificateMetadata', description: 'What the certificate prints beyond the ledger evidence' });

export const Certificate = z
  .object({
    id: z.string(),
    ledgerRecordId: z.string(),
    firmId: z.string(),
    firmName: z.string(),
    firmFrnNumber: z.string(),
    issuedAt: Timestamp,
    verificationUrl: z.url().meta({ description: 'Public page that verifies the certificate (the QR code)' }),
    pdfUrl: z.url().meta({ description: 'Presigned, short-lived (15 minutes) URL of the PDF' }),
    pdfStorageKey: z.string(),
    metadata: CertificateMetadata,
  })
  .meta({
    id: 'Certificate',
    description: 'A presentation envelope (with a PDF) around a signed ledger record',
  });

export const CertificateRequestResult = z
  .object({ certificateId: z.string().nullable(), status: z.enum(['existing', 'enqueued']) })
  .meta({ id: 'CertificateRequestResult' });

export const CertificatePdfUrl = z
  .object({
    url: z.url().meta({ description: 'Presigned GET URL of the PDF, valid 15 minutes' }),
    certificateId: z.string(),
  })
  .meta({ id: 'CertificatePdfUrl' });

/** What the firm's verifiable log says of the certified record (issue 31; docs/ledger-format.md §11). */
export const CertificateLog = z
  .object({
    inclusion: z.enum(['verified', 'failed', 'pending', 'no-checkpoint']).meta({
      description:
        "verified: the record's RFC 6962 inclusion proof verifies against the checkpoint's root (checked at verifiedAt); failed: it does not; pending: the latest checkpoint does not cover the record yet (just committed; within seconds); no-checkpoint: none covers it and none will (checkpoints are off on this service)",
    }),
    origin: z.string().nullable().meta({
      description: "The log's origin `<host>/ledger/<firmId>`; null when the log has no checkpoint",
    }),
    leafIndex: z.number().int().meta({ description: "The record's leaf index: sequenceNumber − 1" }),
    treeSize: z.number().int().nullable().meta({
      description: 'The size N of the latest checkpoint, which covers the record; null unless checked',
    }),
    checkpoint: z.string().nullable().meta({
      description:
        'That checkpoint as a C2SP signed note: the tlog-checkpoint text, the log signatures and every witness cosignature',
    }),
    signedAt: Timestamp.nullable().meta({ description: 'When the log signed the checkpoint' }),
    logSignatures: z.array(z.enum(['ecdsa', 'ed25519'])).meta({
      description:
        "The log's signatures that verified with a key valid at signedAt: ecdsa (0x02, the ledger key), ed25519 (0x01, the checkpoint key)",
    }),
    cosignedBy: z
      .array(
        z.object({
          name: z.string().meta({ description: "The witness's name, as its vkey names it" }),
          keyId: z.string().meta({ description: "The witness's key ID, 8 hex" }),
          timestamp: Timestamp.meta({ description: 'When it cosigned (its cosignature/v1 timestamp)' }),
        }),
      )
      .meta({
        description: 'Each witness known to the service whose cosignature of the checkpoint verified',
      }),
    statement: z.string().meta({
      description:
        "The sentence the page shows: 'Included in <origin> at size N (leaf i), signed by …, cosigned by …'",
    }),
  })
  .meta({ id: 'CertificateLog' });

export const VerificationResult = z
  .object({
    valid: z.boolean(),
    certificate: Certificate,
    record: z.object({
      id: z.string(),
      sequenceNumber: z.number().int(),
      documentHash: z.string(),
      previousHash: z.string().nullable(),
      recordHash: z.string(),
      chainHash: z.string(),
      signature: z.string(),
      publicKey: z.string(),
    }),
    log: CertificateLog,
    verifiedAt: Timestamp,
    reason: z
      .string()
      .nullable()
      .meta({ description: 'Why the certificate does not verify; null when valid' }),
  })
  .meta({
    id: 'CertificateVerificationResult',
    description:
      'The Verification result of the specification (a public check of one certificate), with what the verifiable log says of the record (log)',
  });
