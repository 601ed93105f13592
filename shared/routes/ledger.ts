import { IdParam } from '../schemas/common.js';
import { LedgerRecord, LedgerRecordPage, ListRecordsQuery } from '../schemas/ledger.js';
import { ANY_CREDENTIAL, route } from './route.js';

export const listRecords = route({
  operationId: 'listLedgerRecords',
  method: 'GET',
  path: '/v1/ledger/records',
  handler: 'functions/ledger/list-records',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', ledger: 'read' },
  tag: 'Ledger',
  summary: "List the firm's ledger records",
  description:
    'Newest first by default (order=asc for chain order). Filters combine with AND: eventType, actorId, documentHash and documentReference (documentMetadata.documentReference) match exactly; startDate and endDate bound timestamp inclusively.',
  request: { query: ListRecordsQuery },
  responses: { 200: { description: 'A page of records', schema: LedgerRecordPage } },
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
