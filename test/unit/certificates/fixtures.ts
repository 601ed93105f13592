import { generateKeyPairSync, sign } from 'node:crypto';
import { computeChainHash, computeRecordHash, signedMessage } from '../../../shared/ledger/hashing.js';
import type { LedgerEventType } from '../../../shared/ledger/event-types.js';
import type { LedgerRecord } from '../../../shared/ledger/record.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
export const PUBLIC_KEY = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');

/** A genuinely sealed record (hashes and signature hold), for rendering and verification tests. */
export function sealedRecord(
  eventType: LedgerEventType,
  documentMetadata: Record<string, unknown>,
  overrides: Partial<LedgerRecord> = {},
): LedgerRecord {
  const payload = {
    id: 'rec_01JDX3K6Q8N2T5V7W9Y1Z3B5C7',
    firmId: 'firm_01JDX3K6Q8N2T5V7W9Y1Z3B5C8',
    sequenceNumber: 42,
    eventType,
    actorId: 'usr_01JDX3K6Q8N2T5V7W9Y1Z3B5C9',
    actorName: 'Priya Raman',
    actorFcaRef: 'PXR01234',
    documentHash: 'a'.repeat(64),
    documentMetadata,
    timestamp: '2026-11-21T14:03:27.512Z',
    reviewJobId: 'job_01JDX3K6Q8N2T5V7W9Y1Z3B5CA',
    ...overrides,
  };
  const previousHash = 'b'.repeat(64);
  const recordHash = computeRecordHash(payload);
  const chainHash = computeChainHash(previousHash, recordHash);
  const signature = sign('sha256', signedMessage(chainHash), {
    key: privateKey,
    dsaEncoding: 'der',
  }).toString('base64');
  return { ...payload, previousHash, recordHash, chainHash, signature, publicKey: PUBLIC_KEY };
}
