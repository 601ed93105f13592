import { parseVkey } from '../domain/tlog/note.js';
import type { LogPolicy } from './evidence-log-verify.js';

/*
 * The auditor's log policy as given to a verifier (issue 31): witness vkeys, how many of them must have cosigned,
 * and a checkpoint kept from an earlier check. One reading for both front ends of the evidence verifier: the CLI
 * (`--witness` repeated, `--witnesses-needed`, `--since <file>`) and the offline page (a text area of vkeys, a
 * number, a text area for the kept checkpoint), so that the page checks exactly what the CLI checks.
 */

/** A policy input that cannot be used; `field` names which one. */
export class LogPolicyError extends Error {
  constructor(
    readonly field: 'witness' | 'witnessesNeeded',
    message: string,
  ) {
    super(message);
  }
}

export interface LogPolicyInput {
  /** Witness vkeys (C2SP), as given: surrounding blanks are ignored, empty entries too. */
  witnesses?: readonly string[];
  /** How many of them must have cosigned, as text; empty or absent: all of them. */
  witnessesNeeded?: string | undefined;
  /** A signed checkpoint kept earlier (its text); empty or absent: none. */
  since?: string | undefined;
}

/** The policy for verifyEvidenceBundle / monitorStep; throws LogPolicyError on a bad vkey or count. */
export function readLogPolicy(
  input: LogPolicyInput,
): LogPolicy & { witnesses: string[]; witnessesNeeded: number } {
  const witnesses = (input.witnesses ?? []).map((w) => w.trim()).filter((w) => w !== '');
  for (const vkey of witnesses) {
    try {
      parseVkey(vkey);
    } catch (error) {
      throw new LogPolicyError('witness', `witness ${vkey}: ${(error as Error).message}`);
    }
  }
  const text = input.witnessesNeeded?.trim() ?? '';
  const needed = text === '' ? witnesses.length : Number(text);
  if (!/^\d*$/.test(text) || !Number.isSafeInteger(needed) || needed > witnesses.length)
    throw new LogPolicyError(
      'witnessesNeeded',
      `witnesses needed must be an integer from 0 to the number of witness keys (${witnesses.length})`,
    );
  const since = input.since !== undefined && input.since.trim() !== '' ? input.since : undefined;
  return { witnesses, witnessesNeeded: needed, ...(since === undefined ? {} : { since }) };
}
