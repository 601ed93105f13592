import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cosignatureMessage, cosignatureSignature } from '../domain/tlog/cosignature.js';
import { cosignatureKeyId, formatVkey, isValidKeyName, SIG_COSIGNATURE_V1 } from '../domain/tlog/note.js';
import type { NoteSignature } from '../domain/tlog/note.js';

/**
 * The witness's identity: a name (a schema-less URL, part of the key ID) and an Ed25519 key, both made once in
 * the state folder (`witness-key.pem`, PKCS#8, mode 0600; `witness-name`) and reused on every start, so its vkey
 * (type 0x04, C2SP tlog-cosignature) never changes. A different --name on a later start is refused.
 */

export class WitnessIdentityError extends Error {
  override name = 'WitnessIdentityError';
}

export interface WitnessIdentity {
  name: string;
  vkey: string;
  /** The cosignature/v1 note signature of `checkpointText` at `timestamp` (POSIX seconds). */
  cosign(checkpointText: string, timestamp: number): NoteSignature;
}

function readOptional(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function loadName(stateDir: string, requested: string | undefined): string {
  const file = join(stateDir, 'witness-name');
  const saved = readOptional(file)?.trim();
  if (saved !== undefined) {
    if (requested !== undefined && requested !== saved) {
      throw new WitnessIdentityError(`this state folder belongs to witness ${saved}, not ${requested}`);
    }
    return saved;
  }
  if (requested === undefined) throw new WitnessIdentityError('first start: give the witness a --name');
  if (!isValidKeyName(requested)) {
    throw new WitnessIdentityError(`--name ${JSON.stringify(requested)}: no spaces or '+', not empty`);
  }
  writeFileSync(file, `${requested}\n`, { flag: 'wx', mode: 0o600 });
  return requested;
}

function loadKey(stateDir: string): KeyObject {
  const file = join(stateDir, 'witness-key.pem');
  const pem = readOptional(file);
  if (pem !== undefined) return createPrivateKey(pem);
  const { privateKey } = generateKeyPairSync('ed25519');
  writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { flag: 'wx', mode: 0o600 });
  return privateKey;
}

export function loadWitnessIdentity(stateDir: string, requestedName: string | undefined): WitnessIdentity {
  const name = loadName(stateDir, requestedName);
  const privateKey = loadKey(stateDir);
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new WitnessIdentityError('witness-key.pem is not Ed25519');
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const publicKey = new Uint8Array(spki.subarray(spki.length - 32));
  const keyId = cosignatureKeyId(name, publicKey);
  return {
    name,
    vkey: formatVkey(name, SIG_COSIGNATURE_V1, publicKey),
    cosign(checkpointText, timestamp) {
      const signature = new Uint8Array(sign(null, cosignatureMessage(checkpointText, timestamp), privateKey));
      return { name, keyId, signature: cosignatureSignature(timestamp, signature) };
    },
  };
}
