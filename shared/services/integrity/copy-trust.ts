/**
 * Whether an immutable copy can be trusted as the record of a position of a firm's chain, on its own: pure (the
 * key history is given), so restore (immutable-copy.ts, copyProblems) and `ledgerctl recover ledger`
 * (shared/services/recover) apply one rule.
 */
import { keyProblemAt, type KeyProblem, type SigningKeyHistory } from '../../ledger/key-history.js';
import type { LedgerRecord } from '../../ledger/record.js';
import { checkRecord } from '../../ledger/verify.js';
import { parseImmutableRecordKey } from '../../store/immutable-layout.js';

const KEY_PROBLEM_TEXT: Record<KeyProblem, string> = {
  UNTRUSTED_KEY: 'it is signed with a key the service has not published',
  KEY_REVOKED: 'its key was revoked at or before its timestamp',
  KEY_NOT_VALID_AT_TIMESTAMP: "its timestamp lies outside its key's validity window",
};

/**
 * Why a copy cannot be trusted as the record of `sequenceNumber` in `firmId` (empty when it can): it must be
 * of that firm, at the sequence number and with the id its key names, its record hash, chain hash and
 * signature must hold, and its key must have been valid at its timestamp by `history` (not revoked).
 */
export function trustProblems(
  history: SigningKeyHistory,
  firmId: string,
  sequenceNumber: number,
  copy: { key: string; record: LedgerRecord },
): string[] {
  const { record } = copy;
  const named = parseImmutableRecordKey(copy.key);
  const problems: string[] = [];
  if (record.firmId !== firmId || named?.firmId !== firmId) problems.push('it belongs to another firm');
  if (record.sequenceNumber !== sequenceNumber || named?.sequenceNumber !== sequenceNumber)
    problems.push(`its sequence number is not ${sequenceNumber}, the one its key names`);
  if (named?.recordId !== record.id) problems.push('its id is not the one its key names');
  for (const problem of checkRecord(record)) problems.push(problem.toLowerCase().replaceAll('_', ' '));
  const keyProblem = keyProblemAt(history, record.publicKey, record.timestamp);
  if (keyProblem) problems.push(KEY_PROBLEM_TEXT[keyProblem]);
  return problems;
}
