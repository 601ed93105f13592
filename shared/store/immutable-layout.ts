import { padSequence, SEQUENCE_DIGITS } from './keys.js';

/**
 * Where ledger records live in the immutable bucket: one object per record,
 * `ledger/<firmId>/<12-digit sequence>-<recordId>.json`, holding the record's canonical JSON. A listing is in
 * chain order; the sequence prefix finds a copy by number and the id finds it by record, even when the
 * database row is gone or rewritten. (The bucket's other objects, submitted documents' copies under
 * `documents/`, are named by the review job: documentCopyKey in shared/domain/review/jobs.ts.)
 */
export function immutableRecordKey(firmId: string, sequenceNumber: number, recordId: string): string {
  return `${immutableSequencePrefix(firmId, sequenceNumber)}${recordId}.json`;
}

/** The prefix of every record copy of a firm. */
export function immutableFirmPrefix(firmId: string): string {
  return `ledger/${firmId}/`;
}

/** The prefix of the copies claiming one sequence number (normally one). */
export function immutableSequencePrefix(firmId: string, sequenceNumber: number): string {
  return `${immutableFirmPrefix(firmId)}${padSequence(sequenceNumber)}-`;
}

const RECORD_KEY = new RegExp(`^ledger/([^/]+)/(\\d{${SEQUENCE_DIGITS}})-([^/]+)\\.json$`);

/** Firm, sequence number and record id named by a record copy's key, or null for any other key. */
export function parseImmutableRecordKey(
  key: string,
): { firmId: string; sequenceNumber: number; recordId: string } | null {
  const match = RECORD_KEY.exec(key);
  return match ? { firmId: match[1]!, sequenceNumber: Number(match[2]), recordId: match[3]! } : null;
}
