import type { LedgerEventType } from './event-types.js';

/** Who caused a record. */
export interface Actor {
  id: string;
  name: string;
  fcaRef: string | null;
}

/** The signed part of a record: exactly these fields, canonicalised with RFC 8785 (docs/ledger-format.md). */
export interface RecordPayload {
  id: string;
  firmId: string;
  sequenceNumber: number;
  eventType: LedgerEventType;
  actorId: string;
  actorName: string;
  actorFcaRef: string | null;
  documentHash: string;
  documentMetadata: Record<string, unknown>;
  timestamp: string;
  reviewJobId: string | null;
}

export interface LedgerRecord extends RecordPayload {
  previousHash: string | null;
  recordHash: string;
  chainHash: string;
  /** base64 DER ECDSA P-256 signature over the UTF-8 bytes of chainHash. */
  signature: string;
  /** base64 DER SubjectPublicKeyInfo of the signing key. */
  publicKey: string;
}

export const PAYLOAD_FIELDS = [
  'id',
  'firmId',
  'sequenceNumber',
  'eventType',
  'actorId',
  'actorName',
  'actorFcaRef',
  'documentHash',
  'documentMetadata',
  'timestamp',
  'reviewJobId',
] as const satisfies readonly (keyof RecordPayload)[];

export const RECORD_FIELDS = [
  ...PAYLOAD_FIELDS,
  'previousHash',
  'recordHash',
  'chainHash',
  'signature',
  'publicKey',
] as const satisfies readonly (keyof LedgerRecord)[];

/** Picks the payload fields of anything record-shaped (extra attributes, e.g. storage keys, are dropped). */
export function payloadOf(record: RecordPayload): RecordPayload {
  return Object.fromEntries(PAYLOAD_FIELDS.map((f) => [f, record[f]])) as unknown as RecordPayload;
}

/** Picks exactly the public fields of a record. */
export function recordOf(row: LedgerRecord): LedgerRecord {
  return Object.fromEntries(RECORD_FIELDS.map((f) => [f, row[f]])) as unknown as LedgerRecord;
}
