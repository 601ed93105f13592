import { decodeBase64, encodeBase64, parseDecimal } from './encoding.js';
import { HASH_SIZE, type Hash } from './hash.js';

/**
 * C2SP tlog-checkpoint: the note text `<origin>\n<size>\n<base64 root>\n` plus optional non-empty extension
 * lines. A firm's origin is `<host[:port] of PUBLIC_BASE_URL>/ledger/<firmId>`.
 */

export interface Checkpoint {
  origin: string;
  size: number;
  root: Hash;
  extensions: string[];
}

export class CheckpointFormatError extends Error {
  override name = 'CheckpointFormatError';
}

function checkLine(line: string, what: string): void {
  if (line.length === 0 || line.includes('\n'))
    throw new CheckpointFormatError(`the ${what} line is empty or spans lines`);
}

/** The note text of a checkpoint, ending with a newline. */
export function formatCheckpoint(c: Checkpoint): string {
  checkLine(c.origin, 'origin');
  if (!Number.isSafeInteger(c.size) || c.size < 0)
    throw new CheckpointFormatError(`size ${c.size} is not valid`);
  if (c.root.length !== HASH_SIZE) throw new CheckpointFormatError('the root hash is not 32 bytes');
  c.extensions.forEach((e) => checkLine(e, 'extension'));
  return [c.origin, String(c.size), encodeBase64(c.root), ...c.extensions].map((l) => `${l}\n`).join('');
}

/** Parses a checkpoint's note text (not the signed note: see parseNote); throws CheckpointFormatError. */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith('\n')) throw new CheckpointFormatError('the checkpoint text must end with a newline');
  const lines = text.slice(0, -1).split('\n');
  const [origin = '', sizeText = '', rootText = '', ...extensions] = lines;
  if (lines.length < 3 || origin.length === 0)
    throw new CheckpointFormatError('a checkpoint has origin, size and root');
  const size = parseDecimal(sizeText);
  if (size === undefined)
    throw new CheckpointFormatError(`tree size ${JSON.stringify(sizeText)} is not valid`);
  const root = decodeBase64(rootText);
  if (!root || root.length !== HASH_SIZE)
    throw new CheckpointFormatError('the root hash is not base64 of 32 bytes');
  if (extensions.some((e) => e.length === 0)) throw new CheckpointFormatError('an extension line is empty');
  return { origin, size, root, extensions };
}

/** `<host[:port] of publicBaseUrl>/ledger/<firmId>` (the URL parser lower-cases the host, drops a default port). */
export function checkpointOrigin(publicBaseUrl: string, firmId: string): string {
  if (firmId.length === 0 || /[\s+/]/u.test(firmId))
    throw new CheckpointFormatError(`firm id ${firmId} is not valid`);
  return `${new URL(publicBaseUrl).host}/ledger/${firmId}`;
}
