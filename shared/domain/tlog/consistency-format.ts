import { decodeBase64, encodeBase64 } from './encoding.js';
import { HASH_SIZE, type Hash } from './hash.js';

/**
 * A list of hashes as text, one base64 hash a line, each line ending with a newline: the body of
 * GET /v1/ledger/log/consistency and the proof lines of a tlog-witness add-checkpoint request.
 */

export class HashLinesFormatError extends Error {
  override name = 'HashLinesFormatError';
}

export function formatHashLines(hashes: readonly Hash[]): string {
  if (hashes.some((h) => h.length !== HASH_SIZE)) throw new HashLinesFormatError('a hash is not 32 bytes');
  return hashes.map((h) => `${encodeBase64(h)}\n`).join('');
}

/** Parses hash lines ('' is the empty list); at most `maxLines` (RFC 6962 proofs have at most 63 hashes, C2SP's limit). */
export function parseHashLines(text: string, maxLines = 63): Hash[] {
  if (text === '') return [];
  if (!text.endsWith('\n')) throw new HashLinesFormatError('every hash line must end with a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length > maxLines) throw new HashLinesFormatError(`more than ${maxLines} hash lines`);
  return lines.map((line) => {
    const hash = decodeBase64(line);
    if (!hash || hash.length !== HASH_SIZE)
      throw new HashLinesFormatError('a line is not a base64 SHA-256 hash');
    return hash;
  });
}
