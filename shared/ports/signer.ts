/**
 * Signs chain hashes. Both adapters produce the same formats as AWS KMS for an ECC_NIST_P256 key with
 * ECDSA_SHA_256 and MessageType RAW: the signature is DER (ASN.1 SEQUENCE of r, s) over SHA-256 of the
 * message bytes, the public key is DER SubjectPublicKeyInfo.
 */
export interface Signer {
  /** Stable identifier of the key (KMS key ARN, or `local:<fingerprint>`). */
  readonly keyId: string;
  sign(message: Uint8Array): Promise<Uint8Array>;
  publicKeySpki(): Promise<Uint8Array>;
}

export const SIGNING_ALGORITHM = 'ECDSA_SHA_256';
export const SIGNING_KEY_SPEC = 'ECC_NIST_P256';
