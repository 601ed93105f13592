/**
 * The checks `ledgerctl recover ledger` makes on every immutable copy before it writes anything (pure: the key
 * history is given, no I/O). A copy is written back as a record row only when
 * - it is the record's exact canonical JSON: exactly the 16 record fields, bytes = RFC 8785 of them (what the
 *   archiver writes, `immutableBytes`), so the row rebuilt from it is the record byte for byte;
 * - it can be trusted on its own (copy-trust.ts: its firm, position and id are the ones its key names, recordHash
 *   = SHA-256(JCS(payload)), chainHash recomputes, the signature verifies under a key of the history valid and not
 *   revoked at the record's timestamp);
 * - it links: previousHash is the chain hash of the record recovered at the position before (null at 1).
 */
import type { SigningKeyHistory } from '../../ledger/key-history.js';
import { canonicalJson } from '../../ledger/hashing.js';
import { RECORD_FIELDS, type LedgerRecord } from '../../ledger/record.js';
import { trustProblems } from '../integrity/copy-trust.js';

/** One object of the immutable store claiming a position of the chain. */
export interface CopyCandidate {
  key: string;
  /** The object's bytes, as UTF-8 text. */
  bytes: string;
}

/** The position being rebuilt and what its record must link to. */
export interface ChainPosition {
  firmId: string;
  sequenceNumber: number;
  /** The chain hash of the record recovered at sequenceNumber − 1 (null at sequence 1). */
  previousChainHash: string | null;
}

export type CopyVerdict =
  | { ok: true; key: string; bytes: string; record: LedgerRecord }
  | { ok: false; key: string; problems: string[] };

const FIELD_SET = new Set<string>(RECORD_FIELDS);

function parsed(bytes: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(bytes);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function canonicalOrNull(value: unknown): string | null {
  try {
    return canonicalJson(value);
  } catch {
    return null;
  }
}

/** Every reason the copy cannot be the record at `at` (ok with the record when there is none). */
export function checkCopy(
  history: SigningKeyHistory,
  at: ChainPosition,
  candidate: CopyCandidate,
): CopyVerdict {
  const { key, bytes } = candidate;
  const value = parsed(bytes);
  if (!value) return { ok: false, key, problems: ['it is not a JSON record'] };
  const fields = Object.keys(value);
  if (fields.length !== FIELD_SET.size || fields.some((f) => !FIELD_SET.has(f)))
    return { ok: false, key, problems: ["its fields are not exactly the record's 16 fields"] };
  const record = value as unknown as LedgerRecord;
  const problems: string[] = [];
  if (canonicalOrNull(record) !== bytes)
    problems.push('its bytes are not the canonical JSON (RFC 8785) of the record they hold');
  try {
    problems.push(...trustProblems(history, at.firmId, at.sequenceNumber, { key, record }));
  } catch {
    problems.push('its fields do not have the types of a record');
  }
  if (record.previousHash !== at.previousChainHash)
    problems.push(
      at.sequenceNumber === 1
        ? 'its previousHash is not null, as the first record of a chain must be'
        : `its previousHash is not the chain hash of sequence number ${at.sequenceNumber - 1}`,
    );
  return problems.length === 0 ? { ok: true, key, bytes, record } : { ok: false, key, problems };
}

/**
 * The copy to recover at `at` from the objects claiming it (normally one): the only one that passes checkCopy.
 * Object Lock forbids overwrites but not a new key beside a locked one, so more than one may claim a position;
 * when none or several pass, the position cannot be recovered. `rejected` lists every other candidate.
 */
export function chooseCopy(
  history: SigningKeyHistory,
  at: ChainPosition,
  candidates: readonly CopyCandidate[],
): {
  chosen: Extract<CopyVerdict, { ok: true }> | null;
  rejected: { key: string; problems: string[] }[];
} {
  const verdicts = candidates.map((c) => checkCopy(history, at, c));
  const sound = verdicts.filter((v) => v.ok);
  const rejected = verdicts.filter((v) => !v.ok).map(({ key, problems }) => ({ key, problems }));
  if (sound.length === 1) return { chosen: sound[0]!, rejected };
  for (const v of sound)
    rejected.push({
      key: v.key,
      problems: [
        `${sound.length} copies that each pass every check claim sequence number ${at.sequenceNumber}`,
      ],
    });
  return { chosen: null, rejected };
}

/** Runs of missing sequence numbers (from `from` on) in an ascending list of the positions that have copies. */
export function gapsIn(sequences: Iterable<number>, from = 1): { from: number; to: number }[] {
  const gaps: { from: number; to: number }[] = [];
  let expected = from;
  for (const sequence of sequences) {
    if (sequence < expected) continue;
    if (sequence > expected) gaps.push({ from: expected, to: sequence - 1 });
    expected = sequence + 1;
  }
  return gaps;
}
