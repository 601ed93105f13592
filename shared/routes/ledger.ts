import { IdParam } from '../schemas/common.js';
import { EvidenceBundle, ExportEvidenceQuery, RecordEvidenceBundle } from '../schemas/evidence.js';
import { LedgerRecord, LedgerRecordPage, ListRecordsQuery } from '../schemas/ledger.js';
import { ANY_CREDENTIAL, route } from './route.js';

export const listRecords = route({
  operationId: 'listLedgerRecords',
  method: 'GET',
  path: '/v1/ledger/records',
  handler: 'functions/ledger/list-records',
  auth: ANY_CREDENTIAL,
  // The immutable store only for a firm without a chain head: is it new, or did it lose its ledger (issue 32)?
  permissions: { main: 'read', ledger: 'read', immutable: 'read' },
  tag: 'Ledger',
  summary: "List the firm's ledger records",
  description:
    'Newest first by default (order=asc for chain order). Filters combine with AND: eventType, actorId, documentHash and documentReference (documentMetadata.documentReference) match exactly; startDate and endDate bound timestamp inclusively. Without filters any page number is served and total is the chain length. With filters a page reads one index (the first equality filter of documentHash, documentReference, actorId, eventType; dates bound it); total is null until the last page; with two or more equality filters a request reads at most 4 × pageSize records, so a page may be short (even empty) with a nextCursor: follow nextCursor until null.',
  request: { query: ListRecordsQuery },
  responses: {
    200: { description: 'A page of records', schema: LedgerRecordPage },
    409: {
      description:
        'The ledger was damaged outside the service: the page or the whole chain is missing from the database although its chain head, its rows or its write-once copies say the records exist (never answered as an empty ledger); see GET /v1/firm/me/backup-status',
    },
  },
});

export const getRecord = route({
  operationId: 'getLedgerRecord',
  method: 'GET',
  path: '/v1/ledger/records/{id}',
  handler: 'functions/ledger/get-record',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', ledger: 'read' },
  tag: 'Ledger',
  summary: 'One ledger record',
  request: { params: IdParam },
  responses: { 200: { description: 'The record', schema: LedgerRecord } },
});

export const exportEvidence = route({
  operationId: 'exportLedgerEvidence',
  method: 'GET',
  path: '/v1/ledger/export',
  handler: 'functions/ledger/export-evidence',
  auth: ANY_CREDENTIAL,
  // publicKey: the key history of the bundle (evidence-key-history.ts).
  permissions: { main: 'read', ledger: 'read', publicKey: true },
  tag: 'Ledger',
  summary: 'An offline evidence bundle of a range of the chain',
  description:
    'Records fromSequence..toSequence in sequence order with the record before the range, the key history and the chain head: everything `npm run verify-evidence` or the page at /verify/offline needs, without the service. Bounded: at most limit (≤ 1,000) records and 4 MiB of record JSON; nextFromSequence, when not null, is where the next bundle starts. A range past the head returns what exists.',
  request: { query: ExportEvidenceQuery },
  responses: { 200: { description: 'The evidence bundle', schema: EvidenceBundle } },
});

export const getRecordEvidence = route({
  operationId: 'getLedgerRecordEvidence',
  method: 'GET',
  path: '/v1/ledger/records/{id}/evidence',
  handler: 'functions/ledger/get-record-evidence',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', ledger: 'read', publicKey: true },
  tag: 'Ledger',
  summary: "One record's offline evidence bundle, with its certificate",
  description:
    'The evidence bundle of GET /v1/ledger/export for just this record (with the record before it and the key history), plus its certificate as issued (null when it has none), which the offline verifiers check names the record and its hashes.',
  request: { params: IdParam },
  responses: { 200: { description: 'The evidence bundle of the record', schema: RecordEvidenceBundle } },
});
