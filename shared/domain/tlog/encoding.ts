/**
 * Text encodings of bytes used by the log's formats: standard base64 (RFC 4648 §4, padded, canonical), lowercase
 * hex and UTF-8. Pure, so the same code runs in Lambda, the offline CLI and the browser.
 */

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Strict standard base64: padded, no whitespace, no non-zero bits in the padding; undefined otherwise. */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!BASE64.test(text)) return undefined;
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  // Non-canonical encodings (stray bits in the last character) decode too: refuse them, one text per value.
  return encodeBase64(bytes) === text ? bytes : undefined;
}

export function encodeHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Hex of even length (either case); undefined otherwise. */
export function decodeHex(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const encoder = new TextEncoder();

export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A decimal ASCII integer without leading zeroes ("0" for zero), at most Number.MAX_SAFE_INTEGER. */
export function parseDecimal(text: string): number | undefined {
  if (!/^(?:0|[1-9][0-9]{0,15})$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}
