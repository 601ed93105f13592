import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSigner } from '../../../shared/adapters/local/local-signer.js';
import { ServiceUnavailableError } from '../../../shared/errors.js';
import { planSigning } from '../../../shared/ledger-writer/signing-plan.js';
import {
  endorsementMessage,
  fingerprintOf,
  type SigningKeyHistory,
} from '../../../shared/ledger/key-history.js';
import {
  genesisHistory,
  identityOf,
  withRevocation,
  withRotation,
} from '../../../shared/ledger/key-rotation.js';
import type { RecordPayload } from '../../../shared/ledger/record.js';
import { publicKeyBase64 } from '../../../shared/ledger/signing-key.js';
import type { Signer } from '../../../shared/ports/signer.js';
import type { Deps } from '../../../shared/runtime/deps.js';

const dir = mkdtempSync(join(tmpdir(), 'gls-plan-'));
const signers: Record<string, Signer> = {
  a: new LocalSigner(join(dir, 'a.pem')),
  b: new LocalSigner(join(dir, 'b.pem')),
};
const SWITCH = '2026-06-01T00:00:00.000Z';
let rotated: SigningKeyHistory;
let keyIds: Record<string, string>;

/** Deps whose ledger table holds one stored history version (the one Query the plan makes). */
function depsWith(history: SigningKeyHistory): Deps {
  const item = { history: JSON.stringify(history), keyIds, writtenAt: SWITCH };
  return {
    db: { send: async () => ({ Items: [item] }) },
    tables: { main: 'main', ledger: 'ledger' },
    signer: signers.a!,
    signerFor: (keyId: string) => signers[keyId]!,
  } as unknown as Deps;
}

beforeAll(async () => {
  const [a, b] = await Promise.all([publicKeyBase64(signers.a!), publicKeyBase64(signers.b!)]);
  keyIds = { [fingerprintOf(a)]: 'a', [fingerprintOf(b)]: 'b' };
  const identity = identityOf(b, SWITCH);
  const signature = Buffer.from(await signers.a!.sign(endorsementMessage(identity))).toString('base64');
  rotated = withRotation(genesisHistory(a), identity, { signedBy: fingerprintOf(a), signature });
});

const payload = (sequenceNumber: number, timestamp: string): RecordPayload => ({
  id: `rec_${sequenceNumber}`,
  firmId: 'firm_1',
  sequenceNumber,
  eventType: 'INCIDENT_LOGGED',
  actorId: 'a',
  actorName: 'A',
  actorFcaRef: null,
  documentHash: '',
  documentMetadata: {},
  timestamp,
  reviewJobId: null,
});
const head = (timestamp: string) => ({ sequenceNumber: 4, chainHash: 'c'.repeat(64), timestamp });

describe('planSigning', () => {
  it('signs by the records’ timestamps: a batch before the switch keeps the old key, with no rotation record', async () => {
    const plan = await planSigning(depsWith(rotated), head('2026-05-31T23:00:00.000Z'), [
      payload(5, '2026-05-31T23:59:59.998Z'),
      payload(6, '2026-05-31T23:59:59.999Z'),
    ]);
    expect(plan.key.publicKey).toBe(rotated.keys[0]!.publicKey);
    expect(plan.key.signer).toBe(signers.a);
    expect(plan).toMatchObject({ keep: 2, rotation: null });
  });

  it('keeps only the records under the first one’s key; the rest wait for the next batch', async () => {
    const plan = await planSigning(depsWith(rotated), head('2026-05-31T23:00:00.000Z'), [
      payload(5, '2026-05-31T23:59:59.999Z'),
      payload(6, SWITCH),
    ]);
    expect(plan).toMatchObject({ keep: 1, rotation: null });
  });

  it('places SIGNING_KEY_ROTATED first, at the first record’s timestamp, when the head was signed by another key', async () => {
    const plan = await planSigning(depsWith(rotated), head('2026-05-31T23:59:59.999Z'), [
      payload(5, SWITCH),
      payload(6, '2026-06-01T00:00:01.000Z'),
    ]);
    expect(plan.key.signer).toBe(signers.b);
    expect(plan.keep).toBe(2);
    expect(plan.rotation).toMatchObject({
      firmId: 'firm_1',
      eventType: 'SIGNING_KEY_ROTATED',
      actor: { id: 'system:signing-key-rotation' },
      requestedAt: SWITCH,
      extras: [],
      documentMetadata: {
        previousKeyFingerprint: rotated.keys[0]!.fingerprint,
        newKeyFingerprint: rotated.keys[1]!.fingerprint,
        newKeyValidFrom: SWITCH,
        keyHistoryVersion: 2,
      },
    });
  });

  it('writes no rotation record for a firm’s first record', async () => {
    const plan = await planSigning(
      depsWith(rotated),
      { sequenceNumber: 0, chainHash: null, timestamp: null },
      [payload(1, SWITCH)],
    );
    expect(plan.rotation).toBeNull();
  });

  it('refuses (503) to sign a record whose key is revoked at its timestamp', async () => {
    const revoked = withRevocation(rotated, rotated.keys[0]!.fingerprint, '2026-05-31T00:00:00.000Z');
    await expect(
      planSigning(depsWith(revoked), head('2026-05-30T00:00:00.000Z'), [
        payload(5, '2026-05-31T12:00:00.000Z'),
      ]),
    ).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});
