import type { Signer } from '../ports/signer.js';
import { computeChainHash, computeRecordHash, signedMessage } from './hashing.js';
import type { LedgerRecord, RecordPayload } from './record.js';

/** Hashes, links and signs a payload after `previousHash` (null for sequence 1). */
export async function sealRecord(
  payload: RecordPayload,
  previousHash: string | null,
  signer: Signer,
  publicKeyBase64: string,
): Promise<LedgerRecord> {
  const recordHash = computeRecordHash(payload);
  const chainHash = computeChainHash(previousHash, recordHash);
  const signature = Buffer.from(await signer.sign(signedMessage(chainHash))).toString('base64');
  return { ...payload, previousHash, recordHash, chainHash, signature, publicKey: publicKeyBase64 };
}
