import {
  certificateLogView,
  logStatement,
  type CertificateLogView,
} from '../domain/certificates/log-view.js';
import { checkEvidenceLog, type LogCheck } from '../ledger/evidence-log-verify.js';
import type { SigningKeyHistory } from '../ledger/key-history.js';
import type { LedgerRecord } from '../ledger/record.js';
import { checkpointIntervalMs } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { LogTileMissingError } from '../store/log-store.js';
import { evidenceLog } from './evidence-log.js';
import { witnessTargets } from './witness-registry.js';

/*
 * What the firm's verifiable log says of a certified record, for the public verification (GET /v1/verify/{id} and
 * the page /verify/{id}; issue 31): the latest checkpoint (one read, no wait: a record committed after it is
 * "not yet in a checkpoint"), its cosignatures (one Query), the record's inclusion hashes (O(log n) tiles) and the
 * two key histories, checked by the evidence verifier's own log check (shared/ledger/evidence-log-verify.ts, the
 * code path of `verify-evidence` and the offline page) with every witness the service knows (the firm's and the
 * platform's) as the policy's witnesses, none of them required: it names who cosigned, it demands nobody.
 */

/**
 * The log view of `record` (the certified record as stored, or its immutable copy when the row is gone) at
 * `sequenceNumber`, and the log's failures in words. `keyHistory` is the signing-key history the caller read.
 */
export async function certificateLog(
  deps: Deps,
  firmId: string,
  sequenceNumber: number,
  record: LedgerRecord | null,
  keyHistory: SigningKeyHistory,
): Promise<{ view: CertificateLogView; problems: string[] }> {
  const [read, witnesses] = await Promise.all([
    readLog(deps, firmId, sequenceNumber),
    witnessTargets(deps, firmId),
  ]);
  const facts = {
    leafIndex: sequenceNumber - 1,
    checkpointsOff: checkpointIntervalMs() === 0,
    witnesses,
  };
  if (read === 'tiles-missing') {
    const { view } = certificateLogView({ ...facts, log: null, check: null });
    const failed = { ...view, inclusion: 'failed' as const };
    return {
      view: { ...failed, statement: logStatement(failed) },
      problems: ["the verifiable log: the hash tiles of the record's inclusion proof are missing"],
    };
  }
  let check: LogCheck | null = null;
  if (read) {
    check = await checkEvidenceLog(
      read,
      { firmId, records: record ? [record] : [], keyHistory },
      { witnesses: witnesses.map((w) => w.vkey), witnessesNeeded: 0 },
    );
    if (!record && read.proofs.length > 0)
      check.failures.push({
        code: 'NOT_INCLUDED',
        record: null,
        message: 'no stored record or copy to check against the log',
      });
  }
  const { view, problems } = certificateLogView({ ...facts, log: read, check });
  return { view, problems: problems.map((p) => `the verifiable log: ${p}`) };
}

/** The log part of the record, or 'tiles-missing' when the checkpoint covers it but its tiles are gone. */
async function readLog(deps: Deps, firmId: string, sequenceNumber: number) {
  try {
    return await evidenceLog(deps, firmId, [sequenceNumber], { wait: false });
  } catch (error) {
    if (error instanceof LogTileMissingError) return 'tiles-missing' as const;
    throw error;
  }
}
