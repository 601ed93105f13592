import type { LedgerRecord } from '../../ledger/record.js';
import { keyProblemAt, type KeyProblem, type SigningKeyHistory } from '../../ledger/key-history.js';
import { checkRecord, type RecordProblem } from '../../ledger/verify.js';

/** Why a record (or a sequence number) fails verification. */
export type ProblemCode =
  RecordProblem | KeyProblem | 'MISSING_RECORD' | 'SEQUENCE_MISMATCH' | 'FIRM_MISMATCH';

export const PROBLEM_MESSAGES: Record<ProblemCode, string> = {
  RECORD_HASH_MISMATCH: 'recordHash does not match the hash of the payload fields (a field was changed)',
  CHAIN_HASH_MISMATCH: 'chainHash does not match SHA-256(previousHash + recordHash)',
  BROKEN_LINK: "previousHash is not the previous record's chainHash",
  BAD_SIGNATURE: 'the signature does not verify against the record public key',
  UNTRUSTED_KEY: 'the record was signed with a key the service has not published',
  KEY_REVOKED: "the record's key was revoked at or before the record's timestamp",
  KEY_NOT_VALID_AT_TIMESTAMP: "the record's timestamp lies outside its key's validity window",
  MISSING_RECORD: 'no record is stored under this sequence number',
  SEQUENCE_MISMATCH:
    'the row stored under this sequence number carries another sequence number (moved or reordered)',
  FIRM_MISMATCH: "the row carries another firm's id",
};

export interface BrokenRecord {
  sequenceNumber: number;
  recordId: string | null;
  problems: { code: ProblemCode; message: string }[];
}

/** A stored row with the sequence number of its position (sort key), which a tampered row may contradict. */
export interface StoredRow {
  position: number;
  record: LedgerRecord;
}

/** Where a verification stands; persisted between chunks so a run can resume anywhere. */
export interface VerificationCursor {
  /** The next sequence number to check. */
  nextSequence: number;
  /** chainHash the next record must link to: null before sequence 1 (or after a missing record). */
  previousChainHash: string | null;
  /** False when the previous record is missing, so the next link cannot be judged. */
  previousKnown: boolean;
  recordsChecked: number;
  brokenCount: number;
}

export function startCursor(fromSequence: number, previousChainHash: string | null): VerificationCursor {
  return {
    nextSequence: fromSequence,
    previousChainHash,
    previousKnown: true,
    recordsChecked: 0,
    brokenCount: 0,
  };
}

/**
 * Checks the rows stored for positions cursor.nextSequence..through (in order; positions without a row are
 * missing): each record's hashes and signature, its key against the key history (published, valid at the
 * record's timestamp, not revoked by then: keyProblemAt), its link to the
 * previous record, and that the row is the record its position says. Returns the broken records and the
 * advanced cursor. Pure: the caller reads the rows and persists the cursor.
 */
export function checkChunk(
  firmId: string,
  rows: readonly StoredRow[],
  through: number,
  cursor: VerificationCursor,
  keyHistory: SigningKeyHistory,
): { broken: BrokenRecord[]; cursor: VerificationCursor } {
  const broken: BrokenRecord[] = [];
  let { nextSequence, previousChainHash, previousKnown, recordsChecked } = cursor;
  const report = (sequenceNumber: number, recordId: string | null, codes: ProblemCode[]) => {
    if (codes.length > 0)
      broken.push({
        sequenceNumber,
        recordId,
        problems: codes.map((code) => ({ code, message: PROBLEM_MESSAGES[code] })),
      });
  };
  const byPosition = new Map(rows.map((row) => [row.position, row.record]));
  for (let position = nextSequence; position <= through; position++) {
    const record = byPosition.get(position);
    if (!record) {
      report(position, null, ['MISSING_RECORD']);
      previousChainHash = null;
      previousKnown = false;
      continue;
    }
    const recordProblems = checkRecord(record, previousKnown ? previousChainHash : undefined);
    const keyProblem = keyProblemAt(keyHistory, record.publicKey, record.timestamp);
    const inPlace = record.sequenceNumber === position;
    const ownFirm = record.firmId === firmId;
    // The sound record (nearly every one) allocates nothing here.
    if (recordProblems.length > 0 || keyProblem !== null || !inPlace || !ownFirm) {
      const codes: ProblemCode[] = [...recordProblems];
      if (keyProblem !== null) codes.push(keyProblem);
      if (!inPlace) codes.push('SEQUENCE_MISMATCH');
      if (!ownFirm) codes.push('FIRM_MISMATCH');
      report(position, record.id, codes);
    }
    recordsChecked += 1;
    previousChainHash = record.chainHash;
    previousKnown = true;
  }
  nextSequence = Math.max(nextSequence, through + 1);
  return {
    broken,
    cursor: {
      nextSequence,
      previousChainHash,
      previousKnown,
      recordsChecked,
      brokenCount: cursor.brokenCount + broken.length,
    },
  };
}
