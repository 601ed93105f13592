import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import {
  EVIDENCE_BUNDLE_FORMAT,
  EVIDENCE_BUNDLE_VERSION,
  type EvidenceBundle,
} from '../../shared/ledger/evidence-bundle.js';
import { signedMessage } from '../../shared/ledger/hashing.js';
import {
  endorsementMessage,
  fingerprintOf,
  type SigningKeyEntry,
  type SigningKeyHistory,
} from '../../shared/ledger/key-history.js';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import { sealRecord } from '../../shared/ledger/seal.js';
import type { Signer } from '../../shared/ports/signer.js';

/** Keys, chains and bundles for the evidence tests (issue 15, part 6): everything signed for real. */

export interface TestKey {
  publicKey: string;
  privateKey: KeyObject;
  signer: Signer;
}

export function testKey(): TestKey {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = pair.publicKey.export({ type: 'spki', format: 'der' });
  return {
    publicKey: spki.toString('base64'),
    privateKey: pair.privateKey,
    signer: {
      keyId: 'test',
      sign: async (message) => sign('sha256', message, pair.privateKey),
      publicKeySpki: async () => spki,
    },
  };
}

export function keyEntry(
  key: TestKey,
  validFrom: string,
  validUntil: string | null = null,
  revokedFrom: string | null = null,
  endorsedBy?: TestKey,
): SigningKeyEntry {
  const identity = {
    fingerprint: fingerprintOf(key.publicKey),
    publicKey: key.publicKey,
    algorithm: 'ECDSA_SHA_256' as const,
    keySpec: 'ECC_NIST_P256' as const,
    validFrom,
  };
  return {
    ...identity,
    validUntil,
    revokedFrom,
    endorsement: endorsedBy
      ? {
          signedBy: fingerprintOf(endorsedBy.publicKey),
          signature: sign('sha256', endorsementMessage(identity), endorsedBy.privateKey).toString('base64'),
        }
      : null,
  };
}

export const EPOCH = '1970-01-01T00:00:00.000Z';

export function historyOf(...keys: SigningKeyEntry[]): SigningKeyHistory {
  return { version: keys.length, keys };
}

/** Seals `count` records of one firm, record i stamped `timestamps(i)` and signed with `keyFor(i)`. */
export async function chainOf(
  firmId: string,
  count: number,
  keyFor: (sequence: number) => TestKey,
  timestampOf: (sequence: number) => string = (i) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
): Promise<LedgerRecord[]> {
  const records: LedgerRecord[] = [];
  for (let sequence = 1; sequence <= count; sequence += 1) {
    const key = keyFor(sequence);
    records.push(
      await sealRecord(
        {
          id: `rec_${firmId}_${sequence}`,
          firmId,
          sequenceNumber: sequence,
          eventType: 'DOCUMENT_APPROVED',
          actorId: 'usr_1',
          actorName: 'Priya Raman',
          actorFcaRef: null,
          documentHash: 'c'.repeat(64),
          documentMetadata: { documentReference: `SR-${sequence}`, note: 'café ✓' },
          timestamp: timestampOf(sequence),
          reviewJobId: null,
        },
        records.at(-1)?.chainHash ?? null,
        key.signer,
        key.publicKey,
      ),
    );
  }
  return records;
}

/** A bundle of `records` (a slice of a chain starting at `predecessor`'s successor, or at 1). */
export function bundleOf(
  records: LedgerRecord[],
  keyHistory: SigningKeyHistory,
  options: Partial<EvidenceBundle> = {},
): EvidenceBundle {
  const first = records[0]?.sequenceNumber ?? 1;
  const last = records.at(-1)?.sequenceNumber ?? 0;
  return {
    format: EVIDENCE_BUNDLE_FORMAT,
    version: EVIDENCE_BUNDLE_VERSION,
    firmId: records[0]?.firmId ?? 'firm_x',
    range: { fromSequence: first, toSequence: last },
    headSequenceNumber: last,
    nextFromSequence: null,
    predecessor: null,
    records,
    keyHistory,
    generatedAt: '2026-11-26T12:00:00.000Z',
    ...options,
  };
}

/** Re-signs a chain hash with another key (a forgery by whoever holds that key). */
export function resign(record: LedgerRecord, key: TestKey): LedgerRecord {
  return {
    ...record,
    publicKey: key.publicKey,
    signature: sign('sha256', signedMessage(record.chainHash), key.privateKey).toString('base64'),
  };
}
