import * as z from 'zod';
import {
  Certificate,
  CertificateIdParam,
  CertificatePdfUrl,
  CertificateRequestResult,
  VerificationResult,
} from '../schemas/certificates.js';
import { ARRAY_LIST_NOTE, ArrayListQuery, IdParam } from '../schemas/common.js';
import { ANY_CREDENTIAL, PUBLIC, route, type Permissions } from './route.js';

/** Verifying reads the certificate, the record and its predecessor, the immutable copy and the published key. */
const VERIFY_PERMISSIONS: Permissions = {
  main: 'read',
  ledger: 'read',
  immutable: 'read',
  publicKey: true,
  certificates: 'read',
};

export const requestCertificate = route({
  operationId: 'requestRecordCertificate',
  method: 'POST',
  path: '/v1/ledger/records/{id}/certificate',
  handler: 'functions/certificates/request-certificate',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', ledger: 'read', queues: ['certificates'] },
  tag: 'Ledger',
  summary: "Issue the record's certificate (idempotent)",
  description:
    'existing with the certificate id once the record has one; otherwise generation is enqueued and certificateId is null (status enqueued). Any record can be certified; outcome records and impact-assessment approvals are certified automatically. A record never gets more than one certificate.',
  request: { params: IdParam },
  responses: {
    200: { description: 'The certificate, or the enqueued generation', schema: CertificateRequestResult },
  },
});

export const getRecordCertificate = route({
  operationId: 'getRecordCertificate',
  method: 'GET',
  path: '/v1/ledger/records/{id}/certificate',
  handler: 'functions/certificates/get-record-certificate',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', ledger: 'read', certificates: 'read' },
  tag: 'Ledger',
  summary: "A presigned URL of the record's certificate PDF",
  description:
    'Keyed by the ledger record id (not the certificate id); 404 until the certificate is generated.',
  request: { params: IdParam },
  responses: { 200: { description: 'PDF URL (15 minutes) and certificate id', schema: CertificatePdfUrl } },
});

export const listCertificates = route({
  operationId: 'listCertificates',
  method: 'GET',
  path: '/v1/ledger/certificates',
  handler: 'functions/certificates/list-certificates',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', certificates: 'read' },
  tag: 'Ledger',
  summary: "The firm's certificates, newest first",
  description: `Newest first (issuedAt, then id). ${ARRAY_LIST_NOTE}`,
  request: { query: ArrayListQuery },
  responses: { 200: { description: 'Certificates, newest first', schema: z.array(Certificate) } },
});

export const getCertificate = route({
  operationId: 'getCertificate',
  method: 'GET',
  path: '/v1/ledger/certificates/{id}',
  handler: 'functions/certificates/get-certificate',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', certificates: 'read' },
  tag: 'Ledger',
  summary: 'One certificate',
  request: { params: IdParam },
  responses: { 200: { description: 'The certificate', schema: Certificate } },
});

export const verifyCertificate = route({
  operationId: 'verifyCertificate',
  method: 'GET',
  path: '/v1/verify/{certificateId}',
  head: true,
  handler: 'functions/certificates/verify-certificate',
  auth: PUBLIC,
  permissions: VERIFY_PERMISSIONS,
  tag: 'Public',
  summary: 'Verify a certificate (no credential)',
  description:
    "Recomputes the certified record's hash from the stored row, checks its link to the previous record, its signature and that its key is the service's published key, compares it with its immutable copy, and checks its inclusion in the firm's verifiable log (log: included in <origin> at size N, signed by the log, cosigned by which witnesses; pending when committed after the latest checkpoint). valid false comes with the reason; 404 for an unknown certificate.",
  request: { params: CertificateIdParam },
  responses: { 200: { description: 'The verification result', schema: VerificationResult } },
});

export const verifyCertificatePage = route({
  operationId: 'verifyCertificatePage',
  method: 'GET',
  path: '/verify/{certificateId}',
  head: true,
  handler: 'functions/certificates/verify-certificate-page',
  auth: PUBLIC,
  permissions: VERIFY_PERMISSIONS,
  tag: 'Public',
  summary: 'Certificate verification page (HTML, for the QR code)',
  description:
    'The same checks as GET /v1/verify/{certificateId}, as a server-rendered page readable on a phone, without script.',
  request: { params: CertificateIdParam },
  responses: {
    200: {
      description: 'Verification page (valid or invalid)',
      schema: z.string(),
      contentType: 'text/html',
    },
    404: { description: 'Unknown certificate page', schema: z.string(), contentType: 'text/html' },
  },
});
