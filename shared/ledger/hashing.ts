import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { payloadOf, type LedgerRecord, type RecordPayload } from './record.js';

/** RFC 8785 (JCS) canonical JSON text of a value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('Value cannot be canonicalised');
  return text;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** recordHash = hex(SHA-256(JCS(payload))). */
export function computeRecordHash(record: RecordPayload): string {
  return sha256Hex(canonicalJson(payloadOf(record)));
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
