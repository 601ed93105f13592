import { decodeBase64, encodeBase64, parseDecimal } from './encoding.js';
import { HASH_SIZE, type Hash } from './hash.js';

/**
 * C2SP tlog-proof (`c2sp.org/tlog-proof@v1`): the header line, an optional `extra <base64>` line, `index <i>`, the
 * inclusion proof one base64 hash a line (the leaf's sibling first), a blank line, then the signed checkpoint
 * verbatim.
 */

export const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';
/** An inclusion proof in a tree of at most 2^63 leaves has at most 63 hashes. */
const MAX_PROOF_HASHES = 63;

export interface TlogProof {
  index: number;
  proof: Hash[];
  /** The signed note of the checkpoint, with its signature lines. */
  checkpoint: string;
  extra?: Uint8Array;
}

export class TlogProofFormatError extends Error {
  override name = 'TlogProofFormatError';
}

export function formatTlogProof(p: TlogProof): string {
  if (!Number.isSafeInteger(p.index) || p.index < 0)
    throw new TlogProofFormatError(`index ${p.index} is not valid`);
  if (p.proof.some((h) => h.length !== HASH_SIZE))
    throw new TlogProofFormatError('a proof hash is not 32 bytes');
  if (p.checkpoint.length === 0 || !p.checkpoint.endsWith('\n')) {
    throw new TlogProofFormatError('the checkpoint must be a signed note ending with a newline');
  }
  const extra = p.extra ? `extra ${encodeBase64(p.extra)}\n` : '';
  const hashes = p.proof.map((h) => `${encodeBase64(h)}\n`).join('');
  return `${TLOG_PROOF_HEADER}\n${extra}index ${p.index}\n${hashes}\n${p.checkpoint}`;
}

/** Parses a tlog-proof; the checkpoint comes back as text, to be checked with verifyNote and parseCheckpoint. */
export function parseTlogProof(text: string): TlogProof {
  const lines = text.split('\n');
  let at = 0;
  if (lines[at++] !== TLOG_PROOF_HEADER)
    throw new TlogProofFormatError(`the first line must be ${TLOG_PROOF_HEADER}`);
  let extra: Uint8Array | undefined;
  if (lines[at]?.startsWith('extra ')) {
    extra = decodeBase64((lines[at++] as string).slice('extra '.length));
    if (!extra) throw new TlogProofFormatError('the extra line is not base64');
  }
  const indexLine = lines[at++] ?? '';
  const index = indexLine.startsWith('index ') ? parseDecimal(indexLine.slice('index '.length)) : undefined;
  if (index === undefined) throw new TlogProofFormatError('the index line is missing or malformed');
  const proof: Hash[] = [];
  while (at < lines.length && lines[at] !== '') {
    const hash = decodeBase64(lines[at++] as string);
    if (!hash || hash.length !== HASH_SIZE)
      throw new TlogProofFormatError('a proof line is not a base64 hash');
    if (proof.push(hash) > MAX_PROOF_HASHES) throw new TlogProofFormatError('the proof has too many hashes');
  }
  if (at >= lines.length) throw new TlogProofFormatError('the blank line before the checkpoint is missing');
  const checkpoint = lines.slice(at + 1).join('\n');
  if (checkpoint.length === 0 || !checkpoint.endsWith('\n'))
    throw new TlogProofFormatError('the checkpoint is missing');
  return extra ? { index, proof, checkpoint, extra } : { index, proof, checkpoint };
}
