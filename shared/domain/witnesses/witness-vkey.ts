import { encodeHex } from '../tlog/encoding.js';
import { parseVkey, SIG_COSIGNATURE_V1, VkeyFormatError } from '../tlog/note.js';

/**
 * A witness as the service submits to it (issue 31, "Submitting"): its C2SP vkey, which must be a cosignature/v1
 * key (type 0x04, Ed25519) whose key ID matches its name and key, and the submission prefix URL the service POSTs
 * `<url>/add-checkpoint` to.
 */
export interface WitnessKey {
  /** The witness's key name, as its cosignature lines carry it. */
  name: string;
  /** Its key ID, 8 lowercase hex: the identity of the witness in the API and in COSIG items. */
  keyId: string;
  vkey: string;
}

export class WitnessKeyError extends Error {
  override name = 'WitnessKeyError';
}

/** Longest vkey accepted: a name of up to 200 characters plus ID and key (type 0x04 keys are 33 bytes). */
export const MAX_WITNESS_VKEY_LENGTH = 300;

/** Parses and checks a witness vkey; throws WitnessKeyError saying what is wrong. */
export function parseWitnessVkey(vkey: string): WitnessKey {
  if (vkey.length > MAX_WITNESS_VKEY_LENGTH)
    throw new WitnessKeyError(`is longer than ${MAX_WITNESS_VKEY_LENGTH} characters`);
  let parsed: ReturnType<typeof parseVkey>;
  try {
    parsed = parseVkey(vkey);
  } catch (error) {
    if (error instanceof VkeyFormatError)
      throw new WitnessKeyError(`is not a C2SP vkey (name+keyID+base64 key): ${error.message}`);
    throw error;
  }
  if (parsed.type !== SIG_COSIGNATURE_V1)
    throw new WitnessKeyError(
      `has signature type 0x${parsed.type.toString(16).padStart(2, '0')}; a witness cosigns with cosignature/v1 (type 0x04)`,
    );
  if (parsed.key.length !== 32) throw new WitnessKeyError('does not hold a 32-byte Ed25519 public key');
  return { name: parsed.name, keyId: encodeHex(parsed.keyId), vkey };
}

/** A platform-wide witness from the operator's configuration (PLATFORM_WITNESSES). */
export interface ConfiguredWitness {
  vkey: string;
  url: string;
}

/**
 * The PLATFORM_WITNESSES format: entries separated by commas or newlines, each `<vkey> <submission prefix URL>`
 * (whitespace between them; a comma inside a URL must be written %2C). Empty: none.
 */
export function parsePlatformWitnesses(text: string): ConfiguredWitness[] {
  return text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const parts = entry.split(/\s+/);
      if (parts.length !== 2)
        throw new WitnessKeyError(`platform witness "${entry}": expected "<vkey> <url>"`);
      return { vkey: parts[0]!, url: parts[1]! };
    });
}
