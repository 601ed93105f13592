import { concatBytes, utf8 } from './encoding.js';

/**
 * C2SP tlog-cosignature, Ed25519 (`cosignature/v1`, signature type 0x04): the signed message is
 * `cosignature/v1\ntime <t>\n` followed by the checkpoint's note text; the note signature is the 8-byte big-endian
 * POSIX timestamp followed by the 64-byte Ed25519 signature.
 */

const MAX_TIMESTAMP = 2n ** 63n - 1n;

function checkTimestamp(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`cosignature timestamp ${timestamp} is not a non-negative integer`);
  }
}

/** The bytes a witness signs for `checkpointText` (the note text, with its final newline) at `timestamp`. */
export function cosignatureMessage(checkpointText: string, timestamp: number): Uint8Array<ArrayBuffer> {
  checkTimestamp(timestamp);
  return utf8(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`);
}

/** timestamp (u64, big-endian) ‖ the 64-byte Ed25519 signature. */
export function cosignatureSignature(timestamp: number, sig64: Uint8Array): Uint8Array<ArrayBuffer> {
  checkTimestamp(timestamp);
  if (sig64.length !== 64) throw new RangeError('an Ed25519 signature is 64 bytes');
  const stamp = new Uint8Array(8);
  new DataView(stamp.buffer).setBigUint64(0, BigInt(timestamp));
  return concatBytes(stamp, sig64);
}

/** The timestamp and signature of a cosignature/v1 note signature (key ID already removed), or undefined. */
export function parseCosignatureSignature(
  sig: Uint8Array,
): { timestamp: number; signature: Uint8Array<ArrayBuffer> } | undefined {
  if (sig.length !== 72) return undefined;
  const stamp = new DataView(sig.buffer, sig.byteOffset, 8).getBigUint64(0);
  if (stamp > MAX_TIMESTAMP || stamp > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return { timestamp: Number(stamp), signature: Uint8Array.from(sig.subarray(8)) };
}
