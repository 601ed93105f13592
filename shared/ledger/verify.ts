import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { computeChainHash, computeRecordHash } from './hashing.js';
import type { LedgerRecord } from './record.js';

export type RecordProblem = 'RECORD_HASH_MISMATCH' | 'CHAIN_HASH_MISMATCH' | 'BROKEN_LINK' | 'BAD_SIGNATURE';

/** Keys seen in records, parsed once. Bounded: a tampered chain may carry any number of made-up keys. */
const keyCache = new Map<string, KeyObject>();
const KEY_CACHE_LIMIT = 64;

function publicKeyFromSpki(spkiBase64: string): KeyObject {
  let key = keyCache.get(spkiBase64);
  if (!key) {
    key = createPublicKey({ key: Buffer.from(spkiBase64, 'base64'), format: 'der', type: 'spki' });
    if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
    keyCache.set(spkiBase64, key);
  }
  return key;
}

/**
 * Verifies a DER ECDSA P-256 signature over SHA-256 of the chain hash text (the UTF-8 bytes signedMessage
 * gives). One-shot crypto.verify with the cached KeyObject: no Verify stream object per call.
 */
export function verifySignature(
  chainHash: string,
  signatureBase64: string,
  publicKeyBase64: string,
): boolean {
  try {
    return verify(
      'sha256',
      Buffer.from(chainHash, 'utf8'),
      publicKeyFromSpki(publicKeyBase64),
      Buffer.from(signatureBase64, 'base64'),
    );
  } catch {
    return false;
  }
}

const NO_PROBLEMS: readonly RecordProblem[] = Object.freeze([]);

/** A payload that cannot be canonicalised (e.g. a lone surrogate written into a row) cannot match its hash. */
function recordHashOf(record: LedgerRecord): string | null {
  try {
    return computeRecordHash(record);
  } catch {
    return null;
  }
}

/**
 * Checks one record on its own and against its predecessor's chain hash (pass `undefined` when the
 * predecessor is unknown, e.g. it is missing). Returns every problem found, empty when the record is sound.
 */
export function checkRecord(
  record: LedgerRecord,
  previousChainHash?: string | null,
): readonly RecordProblem[] {
  const hashOk = recordHashOf(record) === record.recordHash;
  const chainOk = computeChainHash(record.previousHash, record.recordHash) === record.chainHash;
  const linkOk = previousChainHash === undefined || record.previousHash === previousChainHash;
  const signatureOk = verifySignature(record.chainHash, record.signature, record.publicKey);
  if (hashOk && chainOk && linkOk && signatureOk) return NO_PROBLEMS;
  const problems: RecordProblem[] = [];
  if (!hashOk) problems.push('RECORD_HASH_MISMATCH');
  if (!chainOk) problems.push('CHAIN_HASH_MISMATCH');
  if (!linkOk) problems.push('BROKEN_LINK');
  if (!signatureOk) problems.push('BAD_SIGNATURE');
  return problems;
}
