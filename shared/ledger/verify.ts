import { createPublicKey, createVerify, type KeyObject } from 'node:crypto';
import { computeChainHash, computeRecordHash, signedMessage } from './hashing.js';
import type { LedgerRecord } from './record.js';

export type RecordProblem = 'RECORD_HASH_MISMATCH' | 'CHAIN_HASH_MISMATCH' | 'BROKEN_LINK' | 'BAD_SIGNATURE';

const keyCache = new Map<string, KeyObject>();

function publicKeyFromSpki(spkiBase64: string): KeyObject {
  let key = keyCache.get(spkiBase64);
  if (!key) {
    key = createPublicKey({ key: Buffer.from(spkiBase64, 'base64'), format: 'der', type: 'spki' });
    keyCache.set(spkiBase64, key);
  }
  return key;
}

/** Verifies a DER ECDSA P-256 signature over SHA-256 of the chain hash text. */
export function verifySignature(
  chainHash: string,
  signatureBase64: string,
  publicKeyBase64: string,
): boolean {
  try {
    const verifier = createVerify('SHA256');
    verifier.update(signedMessage(chainHash));
    return verifier.verify(
      { key: publicKeyFromSpki(publicKeyBase64), dsaEncoding: 'der' },
      Buffer.from(signatureBase64, 'base64'),
    );
  } catch {
    return false;
  }
}

/**
 * Checks one record on its own and against its predecessor's chain hash (pass `undefined` when the
 * predecessor is unknown, e.g. it is missing). Returns every problem found, empty when the record is sound.
 */
export function checkRecord(record: LedgerRecord, previousChainHash?: string | null): RecordProblem[] {
  const problems: RecordProblem[] = [];
  if (computeRecordHash(record) !== record.recordHash) problems.push('RECORD_HASH_MISMATCH');
  if (computeChainHash(record.previousHash, record.recordHash) !== record.chainHash)
    problems.push('CHAIN_HASH_MISMATCH');
  if (previousChainHash !== undefined && record.previousHash !== previousChainHash)
    problems.push('BROKEN_LINK');
  if (!verifySignature(record.chainHash, record.signature, record.publicKey)) problems.push('BAD_SIGNATURE');
  return problems;
}
