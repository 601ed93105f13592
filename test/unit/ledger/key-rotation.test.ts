import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { endorsementMessage, keyForTimestamp, keyProblemAt } from '../../../shared/ledger/key-history.js';
import {
  currentKeyAt,
  genesisHistory,
  identityOf,
  needsReplacement,
  windowKeyAt,
  withRevocation,
  withRotation,
} from '../../../shared/ledger/key-rotation.js';

function key() {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    publicKey: pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    privateKey: pair.privateKey,
  };
}

const [a, b, c] = [key(), key(), key()];
const genesis = genesisHistory(a.publicKey);

function rotate(history: typeof genesis, next: typeof a, previous: typeof a, validFrom: string) {
  const identity = identityOf(next.publicKey, validFrom);
  const signature = sign('sha256', endorsementMessage(identity), previous.privateKey).toString('base64');
  return withRotation(history, identity, { signedBy: history.keys.at(-1)!.fingerprint, signature });
}

describe('key rotation (pure)', () => {
  it('starts with the first key valid from the epoch, unendorsed', () => {
    expect(genesis).toMatchObject({
      version: 1,
      keys: [{ validFrom: '1970-01-01T00:00:00.000Z', validUntil: null }],
    });
    expect(keyProblemAt(genesis, a.publicKey, '2026-01-01T00:00:00.000Z')).toBeNull();
  });

  it("ends the current key's window where the new key's begins, and the new entry carries a verifiable endorsement", () => {
    const two = rotate(genesis, b, a, '2026-06-01T00:00:00.000Z');
    expect(two.version).toBe(2);
    expect(two.keys[0]!.validUntil).toBe('2026-06-01T00:00:00.000Z');
    const entry = two.keys[1]!;
    expect(entry).toMatchObject({ validUntil: null, revokedFrom: null });
    expect(
      verify(
        'sha256',
        endorsementMessage(entry),
        generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey,
        Buffer.from(entry.endorsement!.signature, 'base64'),
      ),
    ).toBe(false);
    const previousKey = { key: Buffer.from(a.publicKey, 'base64'), format: 'der', type: 'spki' } as const;
    expect(
      verify(
        'sha256',
        endorsementMessage(entry),
        previousKey,
        Buffer.from(entry.endorsement!.signature, 'base64'),
      ),
    ).toBe(true);
    expect(windowKeyAt(two, '2026-05-31T23:59:59.999Z')!.publicKey).toBe(a.publicKey);
    expect(windowKeyAt(two, '2026-06-01T00:00:00.000Z')!.publicKey).toBe(b.publicKey);
    expect(currentKeyAt(two, '2026-05-01T00:00:00.000Z').publicKey).toBe(a.publicKey);
    expect(keyForTimestamp(two, '2026-07-01T00:00:00.000Z')!.publicKey).toBe(b.publicKey);
  });

  it('refuses a known key and a window that does not start after the current one', () => {
    const two = rotate(genesis, b, a, '2026-06-01T00:00:00.000Z');
    expect(() => rotate(two, b, b, '2026-07-01T00:00:00.000Z')).toThrow(/already in the history/);
    expect(() => rotate(two, c, b, '2026-06-01T00:00:00.000Z')).toThrow(/after the current key/);
  });

  it('revokes from an instant, keeps an earlier revocation, and asks for a replacement of a revoked current key', () => {
    const two = rotate(genesis, b, a, '2026-06-01T00:00:00.000Z');
    const revoked = withRevocation(two, two.keys[0]!.fingerprint, '2026-03-01T00:00:00Z');
    expect(revoked.version).toBe(3);
    expect(revoked.keys[0]!.revokedFrom).toBe('2026-03-01T00:00:00.000Z');
    expect(keyProblemAt(revoked, a.publicKey, '2026-02-28T00:00:00.000Z')).toBeNull();
    expect(keyProblemAt(revoked, a.publicKey, '2026-03-01T00:00:00.000Z')).toBe('KEY_REVOKED');
    expect(needsReplacement(revoked)).toBe(false);
    const later = withRevocation(revoked, two.keys[0]!.fingerprint, '2026-04-01T00:00:00Z');
    expect(later.keys[0]!.revokedFrom).toBe('2026-03-01T00:00:00.000Z');
    expect(needsReplacement(withRevocation(two, two.keys[1]!.fingerprint, '2026-08-01T00:00:00Z'))).toBe(
      true,
    );
    expect(() => withRevocation(two, 'ff'.repeat(32), '2026-01-01T00:00:00Z')).toThrow(/no key/);
    expect(() => withRevocation(two, two.keys[0]!.fingerprint, 'soon')).toThrow(/not an ISO 8601 instant/);
  });
});
