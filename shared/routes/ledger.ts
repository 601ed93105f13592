import { IdParam } from '../schemas/common.js';
import { EvidenceBundle, ExportEvidenceQuery, RecordEvidenceBundle } from '../schemas/evidence.js';
import { LedgerRecord, LedgerRecordPage, ListRecordsQuery } from '../schemas/ledger.js';
import {
  ConsistencyQuery,
  LogText,
  LogTileBytes,
  RecordProofQuery,
  TilePathParam,
} from '../schemas/ledger-log.js';
import { ANY_CREDENTIAL, ANY_CREDENTIAL_OR_AUDITOR, route } from './route.js';

export const listRecords = route({
  operationId: 'listLedgerRecords',
  method: 'GET',
  path: '/v1/ledger/records',
  handler: 'functions/ledger/list-records',
  auth: ANY_CREDENTIAL_OR_AUDITOR,
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
  auth: ANY_CREDENTIAL_OR_AUDITOR,
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

/*
 * The firm's verifiable log (issue 31; docs/ledger-format.md, "The verifiable log"): C2SP formats, text/plain and
 * bytes rather than JSON, so that standard transparency-log tools read them. Any credential of the firm, and its
 * read-only auditor keys.
 */

const NO_CHECKPOINT =
  'The firm has no checkpoint yet (its log is empty, or its first records are not yet integrated)';
/** The media type the answers document; they are sent as `text/plain; charset=utf-8`. */
const TEXT = 'text/plain';

export const getLogCheckpoint = route({
  operationId: 'getLogCheckpoint',
  method: 'GET',
  path: '/v1/ledger/log/checkpoint',
  handler: 'functions/ledger/log-checkpoint',
  auth: ANY_CREDENTIAL_OR_AUDITOR,
  permissions: { main: 'read', ledger: 'read' },
  tag: 'Ledger',
  summary: "The latest checkpoint of the firm's log, cosigned",
  description:
    "A C2SP tlog-checkpoint (origin `<host of the public base URL>/ledger/<firmId>`, tree size, base64 root hash) in a C2SP signed note: signed by the ledger's ECDSA P-256 key (signature type 0x02) and by the Ed25519 checkpoint key (0x01), followed by the cosignature line (C2SP tlog-cosignature) of every witness that has cosigned it. Verify it with the keys of GET /v1/ledger/log/vkeys. A new checkpoint follows new records within CHECKPOINT_INTERVAL_MS.",
  request: {},
  responses: {
    200: { description: 'The signed note', contentType: TEXT, schema: LogText('A C2SP signed note') },
    404: { description: NO_CHECKPOINT },
  },
});

export const getLogTile = route({
  operationId: 'getLogTile',
  method: 'GET',
  path: '/v1/ledger/log/tile/{path+}',
  handler: 'functions/ledger/log-tile',
  auth: ANY_CREDENTIAL_OR_AUDITOR,
  permissions: { main: 'read', ledger: 'read' },
  tag: 'Ledger',
  summary: 'A hash tile or entry bundle of the log (C2SP tlog-tiles)',
  description:
    "Hash tiles tile/<L>/<N>[.p/<W>] and entry bundles tile/entries/<N>[.p/<W>] exactly as C2SP tlog-tiles lays them out, so a tlog-tiles client pointed at <base>/v1/ledger/log/ (with the credential header) mirrors and verifies the log. Leaf i is the record of sequence number i + 1; its entry is the 32 bytes of its chainHash. Only tiles within the latest checkpoint are served (others 404). A tile never changes, a partial tile of width W included: immutable and cacheable for a year, varying by credential (the firm is the credential's).",
  request: { params: TilePathParam },
  responses: {
    200: {
      description: 'The tile',
      contentType: 'application/octet-stream',
      schema: LogTileBytes,
      headers: {
        'Cache-Control': {
          description: 'public, max-age=31536000, immutable',
          schema: { type: 'string' },
        },
        Vary: {
          description:
            "Authorization, X-Service-Key: the firm is the credential's, a cache keys the tile by it",
          schema: { type: 'string' },
        },
      },
    },
    404: { description: `Not within the latest checkpoint's tree; or: ${NO_CHECKPOINT}` },
  },
});

export const getRecordProof = route({
  operationId: 'getLedgerRecordProof',
  method: 'GET',
  path: '/v1/ledger/records/{id}/proof',
  handler: 'functions/ledger/get-record-proof',
  auth: ANY_CREDENTIAL_OR_AUDITOR,
  permissions: { main: 'read', ledger: 'read' },
  tag: 'Ledger',
  summary: "A record's inclusion proof in the log (C2SP tlog-proof)",
  description:
    "A C2SP tlog-proof (c2sp.org/tlog-proof@v1): the record's leaf index (its sequence number − 1), the RFC 6962 inclusion proof (one base64 hash a line), then the cosigned checkpoint of that tree size. The leaf hash is SHA-256(0x00 ‖ the 32 bytes of the record's chainHash). Without treeSize: the latest checkpoint; a record committed after it waits for the next checkpoint (up to three CHECKPOINT_INTERVAL_MS) and, if none covers it by then, is answered 409 with Retry-After.",
  request: { params: IdParam, query: RecordProofQuery },
  responses: {
    200: { description: 'The tlog-proof', contentType: TEXT, schema: LogText('A C2SP tlog-proof') },
    404: {
      description: "Unknown record (also for another firm's), or no checkpoint was signed at treeSize",
    },
    409: {
      description:
        'No checkpoint covers the record yet (it was committed moments ago): retry after Retry-After seconds',
      headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
    },
  },
});

export const getLogConsistency = route({
  operationId: 'getLogConsistency',
  method: 'GET',
  path: '/v1/ledger/log/consistency',
  handler: 'functions/ledger/log-consistency',
  auth: ANY_CREDENTIAL_OR_AUDITOR,
  permissions: { main: 'read', ledger: 'read' },
  tag: 'Ledger',
  summary: 'A consistency proof between two tree sizes (RFC 6962)',
  description:
    "The RFC 6962 (RFC 9162 §2.1.4) consistency proof that the tree of `from` records is a prefix of the tree of `to` records, one base64 hash a line (none when from = to). 1 ≤ from ≤ to ≤ the latest checkpoint's size, else 400.",
  request: { query: ConsistencyQuery },
  responses: {
    200: { description: 'The proof', contentType: TEXT, schema: LogText('One base64 hash a line') },
    404: { description: NO_CHECKPOINT },
  },
});

export const getLogVkeys = route({
  operationId: 'getLogVkeys',
  method: 'GET',
  path: '/v1/ledger/log/vkeys',
  handler: 'functions/ledger/log-vkeys',
  auth: ANY_CREDENTIAL_OR_AUDITOR,
  // publicKey: the signing-key history (its genesis version is read from the key itself).
  permissions: { main: 'read', ledger: 'read', publicKey: true },
  // The keys are named by the firm's checkpoint origin, the host of the public base URL.
  needsPublicBaseUrl: true,
  tag: 'Ledger',
  summary: "The log's verifier keys (C2SP vkeys)",
  description:
    "The C2SP verifier keys of the firm's checkpoint origin, name+hex(keyID)+base64(type ‖ key), one a line: type 0x02 (ECDSA P-256, key = SPKI DER) for each signing key of the history that is not revoked, type 0x01 (Ed25519) for each checkpoint key, current or past. Configure witnesses, monitors and verify-evidence with them.",
  request: {},
  responses: {
    200: { description: 'The vkeys', contentType: TEXT, schema: LogText('One C2SP vkey a line') },
  },
});
