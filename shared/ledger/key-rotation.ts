import {
  fingerprintOf,
  type KeyEndorsement,
  type SigningKeyEntry,
  type SigningKeyHistory,
  type SigningKeyIdentity,
} from './key-history.js';
import { SIGNING_ALGORITHM, SIGNING_KEY_SPEC } from '../ports/signer.js';

/**
 * How the signing-key history changes (issue 15), pure: the service (shared/services/signing-key-admin.ts) reads
 * the current version, applies one of these and writes the result as the next version. docs/architecture.md
 * §5 "Signing keys" describes the transition.
 */

/** The first version: the stack's first key, valid from the epoch (it signed every record before any rotation). */
export function genesisHistory(publicKey: string): SigningKeyHistory {
  return {
    version: 1,
    keys: [
      {
        ...identityOf(publicKey, '1970-01-01T00:00:00.000Z'),
        validUntil: null,
        revokedFrom: null,
        endorsement: null,
      },
    ],
  };
}

export function identityOf(publicKey: string, validFrom: string): SigningKeyIdentity {
  return {
    fingerprint: fingerprintOf(publicKey),
    publicKey,
    algorithm: SIGNING_ALGORITHM,
    keySpec: SIGNING_KEY_SPEC,
    validFrom,
  };
}

/** The key that signs now and after: the last entry (a rotation always appends the new key last). */
export function latestKey(history: SigningKeyHistory): SigningKeyEntry {
  return history.keys.at(-1)!;
}

/**
 * The entry whose window [validFrom, validUntil) holds `timestamp`, revoked or not: the key that signs (or
 * signed) a record stamped then. Windows follow each other without gap or overlap, so there is at most one.
 */
export function windowKeyAt(history: SigningKeyHistory, timestamp: string): SigningKeyEntry | undefined {
  const at = Date.parse(timestamp);
  return history.keys.find(
    (k) => Date.parse(k.validFrom) <= at && (k.validUntil === null || at < Date.parse(k.validUntil)),
  );
}

/** The key published as "the" signing key at `now` (/.well-known/signing-key): the one whose window holds now. */
export function currentKeyAt(history: SigningKeyHistory, now: string): SigningKeyEntry {
  return windowKeyAt(history, now) ?? latestKey(history);
}

/**
 * Why a rotation introducing `identity` cannot be applied: it is already known, or its window would not start
 * after the current key's. Null when it can.
 */
export function rotationProblem(history: SigningKeyHistory, identity: SigningKeyIdentity): string | null {
  if (history.keys.some((k) => k.fingerprint === identity.fingerprint))
    return `key ${identity.fingerprint} is already in the history`;
  const latest = latestKey(history);
  if (latest.validUntil !== null) return 'the latest key already has an end: the history is inconsistent';
  if (Date.parse(identity.validFrom) <= Date.parse(latest.validFrom))
    return `the new key must become valid after the current key did (${latest.validFrom})`;
  return null;
}

/**
 * The next version with `identity` as the new latest key: the current key's window ends where the new one's
 * begins, and the new entry carries the previous key's endorsement.
 */
export function withRotation(
  history: SigningKeyHistory,
  identity: SigningKeyIdentity,
  endorsement: KeyEndorsement,
): SigningKeyHistory {
  const problem = rotationProblem(history, identity);
  if (problem) throw new Error(`Cannot rotate: ${problem}`);
  const keys = history.keys.map((k, i) =>
    i === history.keys.length - 1 ? { ...k, validUntil: identity.validFrom } : k,
  );
  keys.push({ ...identity, validUntil: null, revokedFrom: null, endorsement });
  return { version: history.version + 1, keys };
}

/**
 * The next version with key `fingerprint` revoked from `from` (an earlier revocation of it stays: a key is
 * never trusted again). Throws for an unknown key or an instant that is not one.
 */
export function withRevocation(
  history: SigningKeyHistory,
  fingerprint: string,
  from: string,
): SigningKeyHistory {
  if (Number.isNaN(Date.parse(from))) throw new Error(`Cannot revoke: "${from}" is not an ISO 8601 instant`);
  if (!history.keys.some((k) => k.fingerprint === fingerprint))
    throw new Error(`Cannot revoke: no key ${fingerprint} in the history`);
  const instant = new Date(Date.parse(from)).toISOString();
  const keys = history.keys.map((k) =>
    k.fingerprint !== fingerprint ||
    (k.revokedFrom !== null && Date.parse(k.revokedFrom) <= Date.parse(instant))
      ? k
      : { ...k, revokedFrom: instant },
  );
  return { version: history.version + 1, keys };
}

/** A revoked key that is still the latest must be replaced: it may not sign the records to come. */
export function needsReplacement(history: SigningKeyHistory): boolean {
  const latest = latestKey(history);
  return latest.revokedFrom !== null;
}
