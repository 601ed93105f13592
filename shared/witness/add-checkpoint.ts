import { parseCheckpoint, type Checkpoint } from '../domain/tlog/checkpoint.js';
import { HashLinesFormatError, parseHashLines } from '../domain/tlog/consistency-format.js';
import { parseDecimal } from '../domain/tlog/encoding.js';
import { emptyRoot, hashEquals, type Hash } from '../domain/tlog/hash.js';
import {
  NoteFormatError,
  NoteVerificationError,
  parseNote,
  verifyNote,
  type NoteSignature,
  type NoteVerifier,
} from '../domain/tlog/note.js';
import { encodeHex } from '../domain/tlog/encoding.js';
import { verifyConsistency } from '../domain/tlog/verify.js';
import type { LogKeys } from './log-keys.js';

/**
 * C2SP tlog-witness `add-checkpoint`, the decision without I/O: parse the request body, then check in the spec's
 * order and answer with exactly its statuses: 400 malformed or old > new size; 404 unknown origin; 403 no valid
 * signature of a configured key of that origin (or a configured key's signature failing); 409 `old` is not the
 * size last cosigned (the body says that size); 422 a size-0 checkpoint without the empty root, a proof from 0,
 * equal sizes with different roots, or a consistency proof that does not verify. Otherwise the checkpoint may be
 * cosigned, and becomes the origin's latest.
 */

/** What the witness remembers per origin: the checkpoint it last cosigned. */
export interface CosignedState {
  origin: string;
  size: number;
  root: Hash;
  /** The signed note as cosigned: the log's signatures plus this witness's cosignature. */
  note: string;
}

export interface AddCheckpointRequest {
  oldSize: number;
  proof: Hash[];
  /** The submitted signed checkpoint note. */
  note: string;
}

export type AddCheckpointOutcome =
  | { status: 200; checkpoint: Checkpoint; text: string; logSignatures: NoteSignature[] }
  | { status: 400 | 403 | 404 | 422; reason: string }
  | { status: 409; size: number; reason: string };

export class AddCheckpointRequestError extends Error {
  override name = 'AddCheckpointRequestError';
}

/** Proof lines a client may send (C2SP: MUST NOT send more than 63). */
export const MAX_PROOF_LINES = 63;

/** `old <size>\n`, up to 63 base64 hash lines, a blank line, then the signed checkpoint. */
export function parseAddCheckpointRequest(body: string): AddCheckpointRequest {
  const blank = body.indexOf('\n\n');
  if (blank < 0) throw new AddCheckpointRequestError('the body has no blank line before the checkpoint');
  const head = body.slice(0, blank + 1);
  const note = body.slice(blank + 2);
  const firstLineEnd = head.indexOf('\n');
  const oldLine = head.slice(0, firstLineEnd);
  const oldSize = oldLine.startsWith('old ') ? parseDecimal(oldLine.slice(4)) : undefined;
  if (oldSize === undefined) throw new AddCheckpointRequestError('the first line must be "old <size>"');
  let proof: Hash[];
  try {
    proof = parseHashLines(head.slice(firstLineEnd + 1), MAX_PROOF_LINES);
  } catch (error) {
    if (error instanceof HashLinesFormatError) throw new AddCheckpointRequestError(error.message);
    throw error;
  }
  return { oldSize, proof, note };
}

/**
 * Decides a request against the configured logs and the origin's state (`lastCosigned` undefined: never cosigned
 * for this origin, its size counts as 0). The caller serialises calls per origin and persists a 200's checkpoint
 * before answering.
 */
export async function decideAddCheckpoint(
  request: AddCheckpointRequest,
  logs: LogKeys,
  lastCosigned: (origin: string) => Promise<CosignedState | undefined>,
): Promise<AddCheckpointOutcome> {
  let text: string;
  let checkpoint: Checkpoint;
  try {
    text = parseNote(request.note).text;
    checkpoint = parseCheckpoint(text);
  } catch (error) {
    return { status: 400, reason: `malformed checkpoint: ${(error as Error).message}` };
  }
  const verifiers = logs.get(checkpoint.origin);
  if (!verifiers) return { status: 404, reason: `unknown log origin ${checkpoint.origin}` };
  let verified: NoteVerifier[];
  let signatures: NoteSignature[];
  try {
    ({ verified, signatures } = await verifyNote(request.note, verifiers));
  } catch (error) {
    if (error instanceof NoteVerificationError || error instanceof NoteFormatError) {
      return { status: 403, reason: error.message };
    }
    throw error;
  }
  if (request.oldSize > checkpoint.size) {
    return {
      status: 400,
      reason: `old size ${request.oldSize} is larger than the checkpoint size ${checkpoint.size}`,
    };
  }
  const last = await lastCosigned(checkpoint.origin);
  const lastSize = last?.size ?? 0;
  if (request.oldSize !== lastSize) {
    return {
      status: 409,
      size: lastSize,
      reason: `the last cosigned size is ${lastSize}, not ${request.oldSize}`,
    };
  }
  if (checkpoint.size === 0 && !hashEquals(checkpoint.root, emptyRoot())) {
    return { status: 422, reason: 'a checkpoint of size 0 must have the empty root' };
  }
  const oldRoot = last?.root ?? emptyRoot();
  if (!verifyConsistency(request.oldSize, checkpoint.size, request.proof, oldRoot, checkpoint.root)) {
    return {
      status: 422,
      reason: `the checkpoint of size ${checkpoint.size} is not proven consistent with the one of size ${lastSize}`,
    };
  }
  // The log's signatures this witness verified, kept beside its cosignature (the monitoring checkpoint).
  const id = (name: string, keyId: Uint8Array) => `${name}+${encodeHex(keyId)}`;
  const trusted = new Set(verified.map((v) => id(v.name, v.keyId)));
  const logSignatures = signatures.filter((s) => trusted.has(id(s.name, s.keyId)));
  return { status: 200, checkpoint, text, logSignatures };
}
