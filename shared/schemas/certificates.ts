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
    verifiedAt: Timestamp,
    reason: z
      .string()
      .nullable()
      .meta({ description: 'Why the certificate does not verify; null when valid' }),
  })
  .meta({
    id: 'CertificateVerificationResult',
    description: 'The Verification result of the specification: a public check of one certificate',
  });
