import { generateKeyPairSync, sign, verify } from 'node:crypto';
import {
  endorsementMessage,
  fingerprintOf,
  keyForTimestamp,
  keyProblemAt,
  type SigningKeyEntry,
  type SigningKeyHistory,
} from '../../../shared/ledger/key-history.js';

function spki(): { publicKey: string; privateKey: ReturnType<typeof generateKeyPairSync>['privateKey'] } {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    publicKey: pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    privateKey: pair.privateKey,
  };
}

function entry(publicKey: string, validFrom: string, validUntil: string | null): SigningKeyEntry {
  return {
    fingerprint: fingerprintOf(publicKey),
    publicKey,
    algorithm: 'ECDSA_SHA_256',
    keySpec: 'ECC_NIST_P256',
    validFrom,
    validUntil,
    revokedFrom: null,
    endorsement: null,
  };
}

const first = spki();
const second = spki();
const history: SigningKeyHistory = {
  version: 2,
  keys: [
    entry(first.publicKey, '2026-01-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z'),
    entry(second.publicKey, '2026-06-01T00:00:00.000Z', null),
  ],
};

describe('key history', () => {
  it('accepts a key inside its window and rejects it outside, the window being [validFrom, validUntil)', () => {
    expect(keyProblemAt(history, first.publicKey, '2026-05-31T23:59:59.999Z')).toBeNull();
    expect(keyProblemAt(history, first.publicKey, '2026-06-01T00:00:00.000Z')).toBe(
      'KEY_NOT_VALID_AT_TIMESTAMP',
    );
    expect(keyProblemAt(history, first.publicKey, '2025-12-31T23:59:59.999Z')).toBe(
      'KEY_NOT_VALID_AT_TIMESTAMP',
    );
    expect(keyProblemAt(history, second.publicKey, '2026-06-01T00:00:00Z')).toBeNull();
    expect(keyProblemAt(history, second.publicKey, '2030-01-01T00:00:00.000Z')).toBeNull();
  });

  it('rejects a key it has never published and a timestamp that is not an instant', () => {
    expect(keyProblemAt(history, spki().publicKey, '2026-03-01T00:00:00.000Z')).toBe('UNTRUSTED_KEY');
    expect(keyProblemAt(history, first.publicKey, 'yesterday')).toBe('KEY_NOT_VALID_AT_TIMESTAMP');
  });

  it('treats a revoked key as bad from its revocation instant on, and good before it', () => {
    const revoked: SigningKeyHistory = {
      version: 3,
      keys: [{ ...history.keys[0]!, revokedFrom: '2026-03-01T00:00:00.000Z' }, history.keys[1]!],
    };
    expect(keyProblemAt(revoked, first.publicKey, '2026-02-28T12:00:00.000Z')).toBeNull();
    expect(keyProblemAt(revoked, first.publicKey, '2026-03-01T00:00:00.000Z')).toBe('KEY_REVOKED');
    expect(keyForTimestamp(revoked, '2026-04-01T00:00:00.000Z')).toBeUndefined();
    expect(keyForTimestamp(revoked, '2026-07-01T00:00:00.000Z')?.publicKey).toBe(second.publicKey);
  });

  it('picks the key whose window holds the timestamp', () => {
    expect(keyForTimestamp(history, '2026-02-01T00:00:00.000Z')?.publicKey).toBe(first.publicKey);
    expect(keyForTimestamp(history, '2026-07-01T00:00:00.000Z')?.publicKey).toBe(second.publicKey);
  });

  it('endorses the identity fields only, so a later validUntil or revocation keeps the endorsement valid', () => {
    const next = history.keys[1]!;
    const signature = sign('sha256', endorsementMessage(next), first.privateKey);
    const later = {
      ...next,
      validUntil: '2027-01-01T00:00:00.000Z',
      revokedFrom: '2027-01-01T00:00:00.000Z',
    };
    const key = {
      key: Buffer.from(first.publicKey, 'base64'),
      format: 'der' as const,
      type: 'spki' as const,
    };
    expect(verify('sha256', endorsementMessage(later), key, signature)).toBe(true);
    expect(endorsementMessage(next).toString('utf8')).toBe(
      `{"algorithm":"ECDSA_SHA_256","fingerprint":"${next.fingerprint}","keySpec":"ECC_NIST_P256","publicKey":"${next.publicKey}","validFrom":"2026-06-01T00:00:00.000Z"}`,
    );
  });
});
