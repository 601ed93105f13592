import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';
import type { Signer } from '../../ports/signer.js';
import { readOrCreateKeyFile } from './key-file.js';
import { ThrottlingException, type LocalSignerOptions } from './local-signer.js';

/**
 * The embedded stack's Ed25519 checkpoint key (issue 31): a PKCS#8 PEM file under DATA_DIR/keys, created once
 * (mode 0600, never replaced), signing as KMS does for ECC_NIST_EDWARDS25519 / ED25519_SHA_512 / RAW (a 64-byte
 * RFC 8032 signature of the message). Signer-shaped (DER SubjectPublicKeyInfo) so it shares the ledger key's
 * wrapper, latency and quota (SIGNER_LATENCY_MS, SIGNER_RATE_LIMIT): checkpoint Signs count against one quota.
 * shared/ports/note-signer.ts (noteSignerOf) turns it into the NoteSigner the log uses.
 */
export class LocalNoteSigner implements Signer {
  readonly keyId: string;
  private readonly privateKey: KeyObject;
  private readonly spki: Uint8Array;

  constructor(
    keyFile: string,
    private readonly options: Omit<LocalSignerOptions, 'create'> = {},
  ) {
    const pem = readOrCreateKeyFile(keyFile, () =>
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    this.privateKey = createPrivateKey(pem);
    if (this.privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${keyFile} is not an Ed25519 key`);
    this.spki = createPublicKey(this.privateKey).export({ type: 'spki', format: 'der' });
    this.keyId = `local:ed25519:${createHash('sha256').update(this.spki).digest('hex').slice(0, 16)}`;
  }

  async sign(message: Uint8Array): Promise<Uint8Array> {
    const { quota, latencyMs = 0 } = this.options;
    if (quota && !quota.tryTake()) {
      quota.countThrottled();
      throw new ThrottlingException();
    }
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    quota?.countSigned(true);
    return sign(null, message, this.privateKey);
  }

  async publicKeySpki(): Promise<Uint8Array> {
    return this.spki;
  }
}
