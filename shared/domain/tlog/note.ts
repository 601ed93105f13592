import { sha256 } from '@noble/hashes/sha2.js';
import { derToP1363 } from '../../ledger/evidence-crypto-web.js';
import { cosignatureMessage, parseCosignatureSignature } from './cosignature.js';
import { concatBytes, decodeBase64, decodeHex, encodeBase64, encodeHex, utf8 } from './encoding.js';

/**
 * C2SP signed-note: a text ending in a newline, a blank line, then signature lines `— <name> base64(keyID ‖ sig)`.
 * Verifier keys (vkeys) `<name>+hex(keyID)+base64(type ‖ key)`. Signature types this log uses: 0x01 Ed25519 over
 * the text, 0x02 ECDSA P-256 (DER over SHA-256 of the text; key = SPKI DER, key ID = SHA-256(SPKI)[:4], as
 * transparency-dev/witness and sigstore/rekor-tiles do), 0x04 cosignature/v1 (C2SP tlog-cosignature). Signature
 * checks use WebCrypto, so they run in Node and in a browser alike.
 */

export const SIG_ED25519 = 0x01;
export const SIG_ECDSA = 0x02;
export const SIG_COSIGNATURE_V1 = 0x04;

/** Notes with more signature lines are refused (signed-note: verifiers MUST accept at least 16). */
export const MAX_NOTE_SIGNATURES = 100;

export interface NoteSignature {
  name: string;
  /** 4 bytes. */
  keyId: Uint8Array;
  signature: Uint8Array;
}

export interface NoteVerifier {
  name: string;
  keyId: Uint8Array;
  verify(text: string, sig: Uint8Array): Promise<boolean>;
}

/** A verifier built from a vkey: also says which signature type and which vkey it is. */
export interface VkeyVerifier extends NoteVerifier {
  type: number;
  vkey: string;
}

export class NoteFormatError extends Error {
  override name = 'NoteFormatError';
}

/** A known key's signature failed, or no known key signed the note. */
export class NoteVerificationError extends Error {
  override name = 'NoteVerificationError';
}

export class VkeyFormatError extends Error {
  override name = 'VkeyFormatError';
}

const SIG_PREFIX = '\u2014 ';

/** Key names: non-empty, no Unicode space, no '+'. */
export function isValidKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+]/u.test(name) && !hasControlCharacter(name, false);
}

/** An ASCII control character (below U+0020), the newline excepted when `newlineAllowed`. */
function hasControlCharacter(text: string, newlineAllowed: boolean): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x20 && !(newlineAllowed && c === 0x0a)) return true;
  }
  return false;
}

function checkNoteText(text: string): void {
  // Valid UTF-8 (no lone surrogates) and no ASCII control character but the newline.
  if (hasControlCharacter(text, true) || /[\uD800-\uDFFF]/u.test(text)) {
    throw new NoteFormatError('the note has a control character or is not valid UTF-8');
  }
}

export function formatNote(text: string, sigs: readonly NoteSignature[]): string {
  if (!text.endsWith('\n')) throw new NoteFormatError('the note text must end with a newline');
  checkNoteText(text);
  if (sigs.length === 0) throw new NoteFormatError('a signed note needs at least one signature');
  return `${text}\n${formatSignatureLines(sigs)}`;
}

/** `— <name> base64(keyID ‖ signature)\n` for each signature: a note's signature block, or a witness's answer. */
export function formatSignatureLines(sigs: readonly NoteSignature[]): string {
  const lines = sigs.map((s) => {
    if (!isValidKeyName(s.name)) throw new NoteFormatError(`key name ${JSON.stringify(s.name)} is not valid`);
    if (s.keyId.length !== 4) throw new NoteFormatError('a key ID is 4 bytes');
    return `${SIG_PREFIX}${s.name} ${encodeBase64(concatBytes(s.keyId, s.signature))}\n`;
  });
  return lines.join('');
}

/** The signature lines of a note's signature block (`block` ends with a newline). */
function parseSignatureLines(block: string): NoteSignature[] {
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES) throw new NoteFormatError('the note has too many signatures');
  return lines.map((line) => {
    if (!line.startsWith(SIG_PREFIX))
      throw new NoteFormatError('a signature line must start with an em dash');
    const rest = line.slice(SIG_PREFIX.length);
    const space = rest.indexOf(' ');
    const name = space < 0 ? '' : rest.slice(0, space);
    const bytes = space < 0 ? undefined : decodeBase64(rest.slice(space + 1));
    if (!isValidKeyName(name) || !bytes || bytes.length < 5) {
      throw new NoteFormatError('a signature line is malformed');
    }
    return { name, keyId: bytes.slice(0, 4), signature: bytes.slice(4) };
  });
}

/** Splits a signed note into its text (with its final newline) and its signatures; throws NoteFormatError. */
export function parseNote(note: string): { text: string; signatures: NoteSignature[] } {
  checkNoteText(note);
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new NoteFormatError('the note has no signature block');
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  if (block.length === 0 || !block.endsWith('\n')) {
    throw new NoteFormatError('the signature block must be non-empty and end with a newline');
  }
  return { text, signatures: parseSignatureLines(block) };
}

function keyIdOf(name: string, type: number, key: Uint8Array): Uint8Array {
  return sha256(concatBytes(utf8(name), Uint8Array.of(0x0a, type), key)).slice(0, 4);
}

/** SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key)[:4]. */
export function ed25519KeyId(name: string, publicKey32: Uint8Array): Uint8Array {
  return keyIdOf(name, SIG_ED25519, publicKey32);
}

/** SHA-256(SPKI DER)[:4] (signed-note type 0x02). */
export function ecdsaKeyId(spkiDer: Uint8Array): Uint8Array {
  return sha256(spkiDer).slice(0, 4);
}

/** SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key)[:4] (tlog-cosignature, Ed25519). */
export function cosignatureKeyId(name: string, publicKey32: Uint8Array): Uint8Array {
  return keyIdOf(name, SIG_COSIGNATURE_V1, publicKey32);
}

function keyIdFor(name: string, type: number, key: Uint8Array): Uint8Array {
  switch (type) {
    case SIG_ED25519:
    case SIG_COSIGNATURE_V1:
      if (key.length !== 32) throw new VkeyFormatError('an Ed25519 public key is 32 bytes');
      return type === SIG_ED25519 ? ed25519KeyId(name, key) : cosignatureKeyId(name, key);
    case SIG_ECDSA:
      if (key.length < 2 || key[0] !== 0x30)
        throw new VkeyFormatError('an ECDSA key is an SPKI DER sequence');
      return ecdsaKeyId(key);
    default:
      throw new VkeyFormatError(`signature type 0x${type.toString(16).padStart(2, '0')} is not supported`);
  }
}

/** `name+hex(keyID)+base64(type ‖ key)`; key = 32 bytes for 0x01/0x04, SPKI DER for 0x02. */
export function formatVkey(name: string, type: number, keyBytes: Uint8Array): string {
  if (!isValidKeyName(name)) throw new VkeyFormatError(`key name ${JSON.stringify(name)} is not valid`);
  const keyId = keyIdFor(name, type, keyBytes);
  return `${name}+${encodeHex(keyId)}+${encodeBase64(concatBytes(Uint8Array.of(type), keyBytes))}`;
}

/** Parses a vkey of type 0x01, 0x02 or 0x04 and checks its key ID; throws VkeyFormatError. */
export function parseVkey(vkey: string): { name: string; keyId: Uint8Array; type: number; key: Uint8Array } {
  const first = vkey.indexOf('+');
  const second = first < 0 ? -1 : vkey.indexOf('+', first + 1);
  if (second < 0) throw new VkeyFormatError('a vkey is name+keyID+key');
  const name = vkey.slice(0, first);
  const idText = vkey.slice(first + 1, second);
  const keyId = idText.length === 8 ? decodeHex(idText) : undefined;
  const material = decodeBase64(vkey.slice(second + 1));
  if (!isValidKeyName(name) || !keyId || !material || material.length < 2) {
    throw new VkeyFormatError('the vkey is malformed');
  }
  const type = material[0] as number;
  const key = material.slice(1);
  const expected = keyIdFor(name, type, key);
  if (encodeHex(expected) !== encodeHex(keyId))
    throw new VkeyFormatError('the vkey key ID does not match its key');
  return { name, keyId, type, key };
}

function subtle() {
  return globalThis.crypto.subtle;
}

/** A verifier for the vkey's signature type (Ed25519, ECDSA P-256 or cosignature/v1); throws VkeyFormatError. */
export async function verifierFromVkey(vkey: string): Promise<VkeyVerifier> {
  const { name, keyId, type, key } = parseVkey(vkey);
  const base = { name, keyId, type, vkey };
  if (type === SIG_ECDSA) {
    const publicKey = await subtle()
      .importKey('spki', new Uint8Array(key), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify'])
      .catch(() => {
        throw new VkeyFormatError('the 0x02 vkey is not an ECDSA P-256 SPKI key');
      });
    return {
      ...base,
      async verify(text, sig) {
        let p1363: Uint8Array<ArrayBuffer>;
        try {
          p1363 = derToP1363(sig);
        } catch {
          return false;
        }
        return subtle().verify({ name: 'ECDSA', hash: 'SHA-256' }, publicKey, p1363, utf8(text));
      },
    };
  }
  const publicKey = await subtle()
    .importKey('raw', new Uint8Array(key), { name: 'Ed25519' }, false, ['verify'])
    .catch(() => {
      throw new VkeyFormatError('the vkey is not an Ed25519 public key');
    });
  if (type === SIG_ED25519) {
    return {
      ...base,
      async verify(text, sig) {
        return (
          sig.length === 64 && subtle().verify({ name: 'Ed25519' }, publicKey, toBuffer(sig), utf8(text))
        );
      },
    };
  }
  return {
    ...base,
    async verify(text, sig) {
      const parsed = parseCosignatureSignature(sig);
      if (!parsed) return false;
      const message = cosignatureMessage(text, parsed.timestamp);
      return subtle().verify({ name: 'Ed25519' }, publicKey, toBuffer(parsed.signature), message);
    },
  };
}

function toBuffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(bytes);
}

const sameId = (a: Uint8Array, b: Uint8Array) => encodeHex(a) === encodeHex(b);

/**
 * Verifies a signed note against known keys, as C2SP signed-note says: signatures from unknown keys (name and key
 * ID not both matching) are ignored; a known key's failing signature rejects the note; a note no known key
 * signed is rejected. Returns the text, the verifiers whose signature verified (each once) and all signatures.
 * Throws NoteFormatError (malformed) or NoteVerificationError.
 */
export async function verifyNote(
  note: string,
  verifiers: readonly NoteVerifier[],
): Promise<{ text: string; verified: NoteVerifier[]; signatures: NoteSignature[] }> {
  const { text, signatures } = parseNote(note);
  const verified: NoteVerifier[] = [];
  for (const sig of signatures) {
    const verifier = verifiers.find((v) => v.name === sig.name && sameId(v.keyId, sig.keyId));
    if (!verifier || verified.includes(verifier)) continue;
    if (!(await verifier.verify(text, sig.signature))) {
      throw new NoteVerificationError(`the signature of ${sig.name}+${encodeHex(sig.keyId)} does not verify`);
    }
    verified.push(verifier);
  }
  if (verified.length === 0) throw new NoteVerificationError('no known key signed the note');
  return { text, verified, signatures };
}
