import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { payloadOf, type LedgerRecord, type RecordPayload } from './record.js';

/** RFC 8785 (JCS) canonical JSON text of a value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('Value cannot be canonicalised');
  return text;
}

export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/** recordHash = hex(SHA-256(JCS(payload))). */
export function computeRecordHash(record: RecordPayload): string {
  return sha256Hex(canonicalPayload(record));
}

/** The RFC 8785 text of a record's payload (its 11 payload fields; anything else on `record` is ignored). */
export function canonicalPayload(record: RecordPayload): string {
  return fixedOrderPayload(record) ?? canonicalJson(payloadOf(record));
}

/** Any UTF-16 surrogate: such strings (pairs, or lone ones JCS rejects) are left to the generic path. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** JSON text of a string without surrogates, else undefined. JCS writes strings exactly as JSON.stringify. */
function plainString(value: unknown): string | undefined {
  return typeof value === 'string' && !SURROGATE.test(value) ? JSON.stringify(value) : undefined;
}

function nullableString(value: unknown): string | undefined {
  return value === null ? 'null' : plainString(value);
}

/**
 * The payload's canonical text written in the fixed order JCS sorts its 11 known keys into (UTF-16 code-unit
 * order: actorFcaRef, actorId, actorName, documentHash, documentMetadata, eventType, firmId, id, reviewJobId,
 * sequenceNumber, timestamp), with only documentMetadata going through the generic canonicaliser. It applies
 * only when every field has exactly the type the format gives it and no string holds a surrogate; otherwise
 * it returns undefined and the caller takes the generic path, so a tampered or unusual record hashes exactly
 * as canonicalize() would have it (property-tested against it in test/unit/ledger/canonical-payload.test.ts).
 * Verification spends about a tenth of its time here otherwise: sorting keys and building the payload copy.
 */
export function fixedOrderPayload(record: RecordPayload): string | undefined {
  const actorFcaRef = nullableString(record.actorFcaRef);
  const actorId = plainString(record.actorId);
  const actorName = plainString(record.actorName);
  const documentHash = plainString(record.documentHash);
  const metadata: unknown = record.documentMetadata;
  const eventType = plainString(record.eventType);
  const firmId = plainString(record.firmId);
  const id = plainString(record.id);
  const reviewJobId = nullableString(record.reviewJobId);
  const sequence: unknown = record.sequenceNumber;
  const timestamp = plainString(record.timestamp);
  const metadataText = typeof metadata === 'object' && metadata !== null ? canonicalize(metadata) : undefined;
  if (
    actorFcaRef === undefined ||
    actorId === undefined ||
    actorName === undefined ||
    documentHash === undefined ||
    metadataText === undefined ||
    eventType === undefined ||
    firmId === undefined ||
    id === undefined ||
    reviewJobId === undefined ||
    typeof sequence !== 'number' ||
    !Number.isFinite(sequence) ||
    timestamp === undefined
  )
    return undefined;
  return (
    `{"actorFcaRef":${actorFcaRef},"actorId":${actorId},"actorName":${actorName},` +
    `"documentHash":${documentHash},"documentMetadata":${metadataText},` +
    `"eventType":${eventType},"firmId":${firmId},"id":${id},"reviewJobId":${reviewJobId},` +
    `"sequenceNumber":${JSON.stringify(sequence)},"timestamp":${timestamp}}`
  );
}

/** chainHash = hex(SHA-256(UTF-8(previousHash ?? "") + UTF-8(recordHash))). */
export function computeChainHash(previousHash: string | null, recordHash: string): string {
  return sha256Hex((previousHash ?? '') + recordHash);
}

/** The bytes that are signed: the UTF-8 encoding of the 64 hex characters of chainHash. */
export function signedMessage(chainHash: string): Uint8Array {
  return new TextEncoder().encode(chainHash);
}

/** The exact bytes written to the immutable store for a record: its canonical JSON. */
export function immutableBytes(record: LedgerRecord): Uint8Array {
  return new TextEncoder().encode(canonicalJson(record));
}
