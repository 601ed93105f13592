import type { webcrypto } from 'node:crypto';
import type { EvidenceCrypto } from './evidence-verify.js';

/**
 * The evidence verifier's crypto with WebCrypto only (`globalThis.crypto.subtle`): what the offline page runs in
 * a browser (Node has the same API, so the unit tests run it too). KMS and the local signer produce DER
 * ECDSA signatures; WebCrypto verifies the raw r||s form (IEEE P1363), hence derToP1363.
 */

const P256_SIZE = 32;

function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** Reads a DER length at `at`: [length, offset after it]. */
function derLength(der: Uint8Array, at: number): [number, number] {
  const first = der[at];
  if (first === undefined) throw new Error('truncated DER');
  if (first < 0x80) return [first, at + 1];
  const octets = first & 0x7f;
  if (octets === 0 || octets > 2) throw new Error('unsupported DER length');
  let length = 0;
  for (let i = 1; i <= octets; i += 1) length = (length << 8) | (der[at + i] ?? 0);
  return [length, at + 1 + octets];
}

/** One DER INTEGER at `at` as `size` big-endian bytes: [bytes, offset after it]. */
function derInteger(der: Uint8Array, at: number, size: number): [Uint8Array, number] {
  if (der[at] !== 0x02) throw new Error('expected a DER INTEGER');
  const [length, start] = derLength(der, at + 1);
  let value = der.subarray(start, start + length);
  if (value.length !== length) throw new Error('truncated DER');
  while (value.length > size && value[0] === 0) value = value.subarray(1);
  if (value.length > size) throw new Error('DER INTEGER too large');
  const out = new Uint8Array(size);
  out.set(value, size - value.length);
  return [out, start + length];
}

/** A DER ECDSA signature (SEQUENCE of INTEGER r, INTEGER s) as IEEE P1363 r||s, each `size` bytes. */
export function derToP1363(der: Uint8Array, size = P256_SIZE): Uint8Array<ArrayBuffer> {
  if (der[0] !== 0x30) throw new Error('expected a DER SEQUENCE');
  const [length, start] = derLength(der, 1);
  if (start + length !== der.length) throw new Error('DER SEQUENCE length does not match');
  const [r, next] = derInteger(der, start, size);
  const [s, end] = derInteger(der, next, size);
  if (end !== der.length) throw new Error('trailing bytes after the DER signature');
  const out = new Uint8Array(size * 2);
  out.set(r, 0);
  out.set(s, size);
  return out;
}

const hex = (buffer: ArrayBuffer) =>
  Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');

export function webEvidenceCrypto(subtle: webcrypto.SubtleCrypto = globalThis.crypto.subtle): EvidenceCrypto {
  const keys = new Map<string, Promise<webcrypto.CryptoKey>>();
  const keyFor = (spki: string): Promise<webcrypto.CryptoKey> => {
    let key = keys.get(spki);
    if (!key) {
      key = subtle.importKey('spki', base64Bytes(spki), { name: 'ECDSA', namedCurve: 'P-256' }, false, [
        'verify',
      ]);
      keys.set(spki, key);
    }
    return key;
  };
  return {
    sha256Hex: async (data) => hex(await subtle.digest('SHA-256', new Uint8Array(data))),
    verifySignature: async (message, signature, publicKey) => {
      try {
        return await subtle.verify(
          { name: 'ECDSA', hash: 'SHA-256' },
          await keyFor(publicKey),
          derToP1363(base64Bytes(signature)),
          new TextEncoder().encode(message),
        );
      } catch {
        return false;
      }
    },
  };
}
