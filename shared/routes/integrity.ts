import { IdParam } from '../schemas/common.js';
import {
  BackupStatus,
  Discrepancy,
  IntegrityStatus,
  RestoreBody,
  RestoreResult,
  SequenceParam,
  VerifyResponse,
} from '../schemas/integrity.js';
import { VERIFICATION_PERMISSIONS } from '../workers/table.js';
import { ANY_CREDENTIAL, route } from './route.js';

export const integrityStatus = route({
  operationId: 'getLedgerIntegrity',
  method: 'GET',
  path: '/v1/ledger/integrity',
  handler: 'functions/integrity/get-status',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', ledger: 'read' },
  tag: 'Integrity',
  summary: 'Chain length, the last completed verification and recent runs (with progress)',
  request: {},
  responses: { 200: { description: 'Integrity status', schema: IntegrityStatus } },
});

export const getVerification = route({
  operationId: 'getLedgerVerification',
  method: 'GET',
  path: '/v1/ledger/integrity/verifications/{id}',
  handler: 'functions/integrity/get-verification',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Integrity',
  summary: 'One verification run and its result so far',
  request: { params: IdParam },
  responses: { 200: { description: 'The run', schema: VerifyResponse } },
});

export const verify = route({
  operationId: 'verifyLedger',
  method: 'POST',
  path: '/v1/ledger/integrity/verify',
  handler: 'functions/integrity/verify',
  auth: ANY_CREDENTIAL,
  permissions: VERIFICATION_PERMISSIONS,
  tag: 'Integrity',
  summary: 'Verify the chain: hashes, links, signatures, published key, gapless sequence numbers',
  description:
    'Verifies in full from sequence 1 when the chain fits the inline limit (or was never verified), otherwise incrementally from the last valid checkpoint while a full re-verification runs in the background. Work beyond the call’s limits continues on a queue; follow it with GET /v1/ledger/integrity. A completed run writes CHAIN_VERIFIED.',
  request: {},
  responses: {
    200: { description: 'The run and its result (complete, or in progress)', schema: VerifyResponse },
  },
});

export const discrepancy = route({
  operationId: 'getRecordDiscrepancy',
  method: 'GET',
  path: '/v1/ledger/integrity/records/{id}/discrepancy',
  handler: 'functions/integrity/get-discrepancy',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', ledger: 'read', immutable: 'read' },
  tag: 'Integrity',
  summary: 'Field-by-field diff of the database row against the immutable copy',
  description:
    "The id resolves to a sequence number through the immutable copy carrying it (or, for an id only the database knows, the row's position); the row and the copy at that sequence number are compared.",
  request: { params: IdParam },
  responses: { 200: { description: 'The comparison', schema: Discrepancy } },
});

export const restore = route({
  operationId: 'restoreRecord',
  method: 'POST',
  path: '/v1/ledger/integrity/records/{id}/restore',
  handler: 'functions/integrity/restore',
  auth: { kind: 'authenticated', credentials: 'user', roles: ['FIRM_ADMIN', 'LEAD_REVIEWER'] },
  permissions: { main: 'write', ledger: 'restore', immutable: 'write', sign: true },
  tag: 'Integrity',
  summary: 'Restore a tampered or deleted record from its immutable copy (writes CHAIN_REPAIRED)',
  request: { params: IdParam, body: RestoreBody },
  responses: {
    200: { description: 'What was restored, or that nothing needed restoring', schema: RestoreResult },
  },
});

export const missing = route({
  operationId: 'getMissingRecord',
  method: 'GET',
  path: '/v1/ledger/integrity/missing/{sequenceNumber}',
  handler: 'functions/integrity/get-missing',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', ledger: 'read', immutable: 'read' },
  tag: 'Integrity',
  summary: 'The immutable copy of a record whose database row is gone',
  request: { params: SequenceParam },
  responses: { 200: { description: 'The immutable copy and the diff', schema: Discrepancy } },
});

export const backupStatus = route({
  operationId: 'getBackupStatus',
  method: 'GET',
  path: '/v1/firm/me/backup-status',
  handler: 'functions/integrity/get-backup-status',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', ledger: 'read', immutable: 'read' },
  tag: 'Firm',
  summary: 'Database and immutable copies compared: counts, latest record, spot checks',
  description:
    'Answers in a bounded number of reads whatever the ledger size: counts from the chain head, the last background reconciliation (reconciledAt, reconciliation) and the outbox for records appended since (pendingCopies); fresh byte-for-byte spot checks of the latest records and a few random ones; the records the tamper watch found changed or removed outside the service within seconds of the change (tampering, cleared by restore) and a chain head gone while the ledger has records (chainHeadMissing). healthy is false while any of these stands; problems says why in words.',
  request: {},
  responses: { 200: { description: 'Backup status', schema: BackupStatus } },
});
