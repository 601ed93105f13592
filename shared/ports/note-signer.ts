/**
 * Signs checkpoints with the log's Ed25519 checkpoint key (issue 31): C2SP signed-note signature type 0x01, so
 * that witnesses that only accept Ed25519 can cosign. Both adapters produce what AWS KMS produces for an
 * ECC_NIST_EDWARDS25519 key with ED25519_SHA_512 and MessageType RAW: a 64-byte RFC 8032 signature over the
 * message itself. The ledger's ECDSA P-256 key (./signer.ts) signs the same checkpoint as type 0x02.
 */
export interface NoteSigner {
  /** Stable identifier of the key (KMS key ARN, or `local:ed25519:<16 hex of the public key's SHA-256>`). */
  readonly keyId: string;
  /** The 64-byte Ed25519 signature of `message`. */
  sign(message: Uint8Array): Promise<Uint8Array>;
  /** The 32-byte Ed25519 public key. */
  publicKey(): Promise<Uint8Array>;
}

export const NOTE_SIGNING_ALGORITHM = 'ED25519_SHA_512';
export const NOTE_SIGNING_KEY_SPEC = 'ECC_NIST_EDWARDS25519';

/** The fixed DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE, algorithm 1.3.101.112, BIT STRING. */
const ED25519_SPKI_PREFIX = Uint8Array.from([
  0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
]);

/** The raw 32-byte key of an Ed25519 SubjectPublicKeyInfo (what KMS GetPublicKey and node:crypto export). */
export function ed25519KeyFromSpki(spki: Uint8Array): Uint8Array {
  if (spki.length !== ED25519_SPKI_PREFIX.length + 32 || ED25519_SPKI_PREFIX.some((b, i) => spki[i] !== b))
    throw new Error('Not an Ed25519 SubjectPublicKeyInfo');
  return spki.slice(ED25519_SPKI_PREFIX.length);
}

/**
 * A NoteSigner over a Signer-shaped Ed25519 key (sign, DER SubjectPublicKeyInfo): the adapters keep the Signer
 * shape so the composition roots wrap them in the same ThrottledSigner as the ledger key (one Sign quota).
 */
export function noteSignerOf(signer: {
  readonly keyId: string;
  sign(message: Uint8Array): Promise<Uint8Array>;
  publicKeySpki(): Promise<Uint8Array>;
}): NoteSigner {
  let key: Promise<Uint8Array> | undefined;
  return {
    keyId: signer.keyId,
    async sign(message) {
      const signature = await signer.sign(message);
      if (signature.length !== 64)
        throw new Error(`An Ed25519 signature has 64 bytes, got ${signature.length}`);
      return signature;
    },
    publicKey() {
      key ??= signer.publicKeySpki().then(ed25519KeyFromSpki);
      key.catch(() => (key = undefined));
      return key;
    },
  };
}
