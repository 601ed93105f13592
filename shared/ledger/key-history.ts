import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { SIGNING_ALGORITHM, SIGNING_KEY_SPEC } from '../ports/signer.js';

/**
 * The public history of the service's signing keys (issue 15): every key that ever signed a record, with the
 * window in which it could sign. Published at `/.well-known/signing-keys`, carried in evidence bundles, and
 * the only thing a verifier needs to decide whether a record's key was good at the record's time. Pure: no
 * I/O, so the service, the offline CLI and the tests share one rule (docs/ledger-format.md describes it).
 */

/** The fields of an entry that never change once the key exists; the previous key endorses exactly these. */
export interface SigningKeyIdentity {
  /** Lowercase hex SHA-256 of the DER SubjectPublicKeyInfo. */
  fingerprint: string;
  /** base64 DER SubjectPublicKeyInfo, as in every record's `publicKey`. */
  publicKey: string;
  algorithm: typeof SIGNING_ALGORITHM;
  keySpec: typeof SIGNING_KEY_SPEC;
  /** ISO 8601 instant from which the key signs records (a record's `timestamp` is compared with it). */
  validFrom: string;
}

export interface KeyEndorsement {
  /** Fingerprint of the previous key, which signed this entry's identity. */
  signedBy: string;
  /** base64 DER ECDSA P-256 signature (SHA-256) over `endorsementMessage(identity)`. */
  signature: string;
}

export interface SigningKeyEntry extends SigningKeyIdentity {
  /** ISO 8601 instant from which the key no longer signs; null for the current key. */
  validUntil: string | null;
  /** ISO 8601 instant from which the key is treated as compromised; null unless revoked. */
  revokedFrom: string | null;
  /** null for the first key only. */
  endorsement: KeyEndorsement | null;
}

export interface SigningKeyHistory {
  /** Increases by one with every change (rotation, revocation); each version is kept in the immutable store. */
  version: number;
  /** Oldest first. */
  keys: SigningKeyEntry[];
}

/** Why a record's key is not good at the record's time; null when it is. */
export type KeyProblem = 'UNTRUSTED_KEY' | 'KEY_REVOKED' | 'KEY_NOT_VALID_AT_TIMESTAMP';

export function fingerprintOf(publicKeyBase64: string): string {
  return createHash('sha256').update(Buffer.from(publicKeyBase64, 'base64')).digest('hex');
}

/** The bytes the previous key signs to endorse a new key: RFC 8785 canonical JSON of the identity fields. */
export function endorsementMessage(identity: SigningKeyIdentity): Buffer {
  const { fingerprint, publicKey, algorithm, keySpec, validFrom } = identity;
  return Buffer.from(
    canonicalize({ fingerprint, publicKey, algorithm, keySpec, validFrom }) as string,
    'utf8',
  );
}

/**
 * The text of `endorsementMessage` (its bytes are this string's UTF-8), for verifiers without Buffer: the offline
 * page checks endorsements with it (issue 15, part 5; added beside the contract, which it does not change).
 */
export function endorsementText(identity: SigningKeyIdentity): string {
  const { fingerprint, publicKey, algorithm, keySpec, validFrom } = identity;
  return canonicalize({ fingerprint, publicKey, algorithm, keySpec, validFrom }) as string;
}

export function entryForKey(
  history: SigningKeyHistory,
  publicKeyBase64: string,
): SigningKeyEntry | undefined {
  return history.keys.find((k) => k.publicKey === publicKeyBase64);
}

/**
 * Was `publicKeyBase64` allowed to sign a record stamped `timestamp`? Instants compare as times (not text), so
 * equal instants written with different precision agree. A window is [validFrom, validUntil); revocation wins
 * from `revokedFrom` on, whatever the window says.
 */
export function keyProblemAt(
  history: SigningKeyHistory,
  publicKeyBase64: string,
  timestamp: string,
): KeyProblem | null {
  const entry = entryForKey(history, publicKeyBase64);
  if (!entry) return 'UNTRUSTED_KEY';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return 'KEY_NOT_VALID_AT_TIMESTAMP';
  if (entry.revokedFrom !== null && at >= Date.parse(entry.revokedFrom)) return 'KEY_REVOKED';
  if (at < Date.parse(entry.validFrom)) return 'KEY_NOT_VALID_AT_TIMESTAMP';
  if (entry.validUntil !== null && at >= Date.parse(entry.validUntil)) return 'KEY_NOT_VALID_AT_TIMESTAMP';
  return null;
}

/** The entry whose window holds `timestamp` and that is not revoked by then: the key to sign such a record. */
export function keyForTimestamp(history: SigningKeyHistory, timestamp: string): SigningKeyEntry | undefined {
  return history.keys.find((k) => keyProblemAt(history, k.publicKey, timestamp) === null);
}

/**
 * A checkpoint key of the verifiable log (issue 31): the Ed25519 key that signs every firm's checkpoints as
 * C2SP signed-note type 0x01 beside the ledger key (type 0x02, whose windows are the entries above). Its window
 * is [validFrom, validUntil): a key is registered the first time it signs, and the next key's registration ends
 * it, so a verifier knows which checkpoint keys were valid when.
 */
export interface CheckpointKeyEntry {
  /** base64 of the 32-byte Ed25519 public key (a firm's vkey is built from it and the firm's origin). */
  publicKey: string;
  algorithm: 'ED25519_SHA_512';
  keySpec: 'ECC_NIST_EDWARDS25519';
  validFrom: string;
  /** null for the current key. */
  validUntil: string | null;
}

/** Windows from registrations (any order): each key valid from its registration to the next one's. */
export function checkpointKeyWindows(
  registered: readonly { publicKey: string; validFrom: string }[],
): CheckpointKeyEntry[] {
  // Two instances registering one key at once leave two registrations: the later one adds nothing.
  const sorted = [...registered]
    .sort((a, b) => Date.parse(a.validFrom) - Date.parse(b.validFrom))
    .filter((entry, i, all) => i === 0 || all[i - 1]!.publicKey !== entry.publicKey);
  return sorted.map((entry, i) => ({
    publicKey: entry.publicKey,
    algorithm: 'ED25519_SHA_512',
    keySpec: 'ECC_NIST_EDWARDS25519',
    validFrom: entry.validFrom,
    validUntil: sorted[i + 1]?.validFrom ?? null,
  }));
}

/** The checkpoint key whose window holds `at`. */
export function checkpointKeyAt(
  entries: readonly CheckpointKeyEntry[],
  at: string,
): CheckpointKeyEntry | undefined {
  const t = Date.parse(at);
  return entries.find(
    (e) => Date.parse(e.validFrom) <= t && (e.validUntil === null || t < Date.parse(e.validUntil)),
  );
}
