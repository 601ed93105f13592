import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Signer } from '../../ports/signer.js';
import { readOrCreateKeyFile } from './key-file.js';
import type { SignerQuota } from './signer-quota.js';

export interface LocalSignerOptions {
  /** Added to every served Sign call, like KMS's round trip (SIGNER_LATENCY_MS). */
  latencyMs?: number;
  /** The stack-wide quota and counters (SIGNER_RATE_LIMIT); without one, calls are neither limited nor counted. */
  quota?: SignerQuota;
  /** Create the key file when it is missing (default); false for a rotated key, which must already exist. */
  create?: boolean;
}

/** What KMS answers beyond its request quota: a client fault named ThrottlingException, HTTP 400. */
export class ThrottlingException extends Error {
  override readonly name = 'ThrottlingException';
  readonly $fault = 'client';
  readonly $metadata = { httpStatusCode: 400 };
  constructor() {
    super('You have exceeded the rate at which you may call KMS. Reduce the frequency of your calls.');
  }
}

/**
 * ECDSA P-256 signer whose private key lives in a PEM file under DATA_DIR (created on first use, mode 0600).
 * Produces exactly what KMS produces for ECC_NIST_P256 / ECDSA_SHA_256 / MessageType RAW: DER signatures
 * over SHA-256 of the message, and a DER SubjectPublicKeyInfo public key. Behaves like KMS under load too: each
 * Sign call takes `latencyMs`, and calls beyond the shared quota are refused at once with a KMS-shaped
 * ThrottlingException (not delayed); served and refused calls are counted in the quota's shared counters.
 */
export class LocalSigner implements Signer {
  readonly keyId: string;
  private readonly privateKey: KeyObject;
  private readonly spki: Uint8Array;

  constructor(
    keyFile: string,
    private readonly options: LocalSignerOptions = {},
  ) {
    if (!existsSync(keyFile) && options.create === false)
      throw new Error(`Signing key file ${keyFile} does not exist`);
    const pem = readOrCreateKeyFile(keyFile, () =>
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    this.privateKey = createPrivateKey(pem);
    this.spki = createPublicKey(this.privateKey).export({ type: 'spki', format: 'der' });
    this.keyId = `local:${createHash('sha256').update(this.spki).digest('hex').slice(0, 16)}`;
  }

  async sign(message: Uint8Array): Promise<Uint8Array> {
    const { quota, latencyMs = 0 } = this.options;
    if (quota && !quota.tryTake()) {
      quota.countThrottled();
      throw new ThrottlingException();
    }
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    quota?.countSigned();
    return sign('sha256', message, { key: this.privateKey, dsaEncoding: 'der' });
  }

  async publicKeySpki(): Promise<Uint8Array> {
    return this.spki;
  }
}
