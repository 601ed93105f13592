import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Signer } from '../../ports/signer.js';

/**
 * ECDSA P-256 signer whose private key lives in a PEM file under DATA_DIR (created on first use, mode 0600).
 * Produces exactly what KMS produces for ECC_NIST_P256 / ECDSA_SHA_256 / MessageType RAW: DER signatures
 * over SHA-256 of the message, and a DER SubjectPublicKeyInfo public key.
 */
export class LocalSigner implements Signer {
  readonly keyId: string;
  private readonly privateKey: KeyObject;
  private readonly spki: Uint8Array;

  constructor(keyFile: string) {
    if (!existsSync(keyFile)) {
      mkdirSync(dirname(keyFile), { recursive: true });
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      // 'wx' never replaces a key another process created first.
      try {
        writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
          mode: 0o600,
          flag: 'wx',
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    this.privateKey = createPrivateKey(readFileSync(keyFile, 'utf8'));
    this.spki = createPublicKey(this.privateKey).export({ type: 'spki', format: 'der' });
    this.keyId = `local:${createHash('sha256').update(this.spki).digest('hex').slice(0, 16)}`;
  }

  async sign(message: Uint8Array): Promise<Uint8Array> {
    return sign('sha256', message, { key: this.privateKey, dsaEncoding: 'der' });
  }

  async publicKeySpki(): Promise<Uint8Array> {
    return this.spki;
  }
}
