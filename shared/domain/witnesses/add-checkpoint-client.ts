import { formatHashLines } from '../tlog/consistency-format.js';
import { parseCosignatureSignature } from '../tlog/cosignature.js';
import { encodeBase64, encodeHex, parseDecimal } from '../tlog/encoding.js';
import type { Hash } from '../tlog/hash.js';
import { NoteFormatError, parseNote, type NoteVerifier } from '../tlog/note.js';

/**
 * The client side of C2SP tlog-witness `add-checkpoint` (https://c2sp.org/tlog-witness), without I/O: the request
 * body, what an answer means, and the cosignature a 200 carries. The service (shared/services/witness-submission.ts)
 * does the HTTP and keeps the state.
 */

/** The media type of a 409's body: the size the witness last cosigned, in decimal. */
export const TLOG_SIZE_MEDIA_TYPE = 'text/x.tlog.size';

/** `old <size>`, the consistency proof from that size (one base64 hash a line), a blank line, the signed note. */
export function addCheckpointBody(oldSize: number, proof: readonly Hash[], signedNote: string): string {
  return `old ${oldSize}\n${formatHashLines(proof)}\n${signedNote}`;
}

export type WitnessAnswer =
  /** 200: the body holds the witness's cosignature line(s). */
  | { kind: 'cosigned'; body: string }
  /** 409: `old` was not the witness's size; it says which it is. */
  | { kind: 'size'; size: number }
  /** 422: the consistency proof did not verify against what the witness holds: it saw another history. */
  | { kind: 'refused'; reason: string }
  /** No status, a 5xx or 429: worth trying again later. */
  | { kind: 'unavailable'; reason: string }
  /** Any other answer (400, 403 no log key it trusts, 404 unknown origin, …): trying again will not help. */
  | { kind: 'rejected'; reason: string };

const firstLine = (body: string) => body.split('\n', 1)[0]!.slice(0, 200);

/** What a witness's answer means (tlog-witness's statuses). */
export function classifyAnswer(status: number, contentType: string, body: string): WitnessAnswer {
  if (status === 200) return { kind: 'cosigned', body };
  if (status === 409) {
    const size = contentType.split(';')[0]!.trim() === TLOG_SIZE_MEDIA_TYPE ? parseSize(body) : undefined;
    return size === undefined
      ? { kind: 'rejected', reason: `409 without a ${TLOG_SIZE_MEDIA_TYPE} size: ${firstLine(body)}` }
      : { kind: 'size', size };
  }
  if (status === 422) return { kind: 'refused', reason: firstLine(body) };
  if (status >= 500 || status === 429) return { kind: 'unavailable', reason: `${status} ${firstLine(body)}` };
  return { kind: 'rejected', reason: `${status} ${firstLine(body)}` };
}

function parseSize(body: string): number | undefined {
  const text = body.endsWith('\n') ? body.slice(0, -1) : body;
  return parseDecimal(text.trim());
}

/** A cosignature of one checkpoint that verified with the witness's vkey. */
export interface VerifiedCosignature {
  /** The signed-note signature line, '— <name> <base64>' (without its newline). */
  line: string;
  /** The cosignature's timestamp, POSIX seconds. */
  timestamp: number;
}

/**
 * The witness's cosignature of `checkpointText` among the signature lines of a 200's body, verified with its
 * vkey; undefined when the body holds none by this key or it does not verify (a bad cosignature is not kept).
 */
export async function verifiedCosignature(
  checkpointText: string,
  body: string,
  witness: NoteVerifier,
): Promise<VerifiedCosignature | undefined> {
  let signatures;
  try {
    signatures = parseNote(`${checkpointText}\n${body.endsWith('\n') ? body : `${body}\n`}`).signatures;
  } catch (error) {
    if (error instanceof NoteFormatError) return undefined;
    throw error;
  }
  const wantedId = encodeHex(witness.keyId);
  for (const signature of signatures) {
    if (signature.name !== witness.name || encodeHex(signature.keyId) !== wantedId) continue;
    const parsed = parseCosignatureSignature(signature.signature);
    if (!parsed || !(await witness.verify(checkpointText, signature.signature))) continue;
    const bytes = new Uint8Array(4 + signature.signature.length);
    bytes.set(signature.keyId, 0);
    bytes.set(signature.signature, 4);
    return { line: `— ${signature.name} ${encodeBase64(bytes)}`, timestamp: parsed.timestamp };
  }
  return undefined;
}

/** Backoff of the n-th retry (from 1), in whole seconds: base · 2^(n−1), at most `maxSeconds`. */
export function retryDelaySeconds(attempt: number, baseSeconds: number, maxSeconds: number): number {
  return Math.min(maxSeconds, baseSeconds * 2 ** Math.max(0, attempt - 1));
}
