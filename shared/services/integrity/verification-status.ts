/** Verification runs as the API shows them: one run, and the firm's integrity status (latest and recent runs). */
import { NotFoundError } from '../../errors.js';
import type { Actor } from '../../ledger/record.js';
import type { Deps } from '../../runtime/deps.js';
import { getRun, recentRuns, type VerificationRun } from '../../store/integrity-store.js';
import { readHead } from '../../store/ledger-store.js';

export function presentRun(run: VerificationRun) {
  const total = Math.max(0, run.toSequence - run.fromSequence + 1);
  const checkedThrough = Math.min(run.cursor.nextSequence - 1, run.toSequence);
  return {
    id: run.id,
    mode: run.mode,
    status: run.status,
    trigger: run.trigger,
    fromSequence: run.fromSequence,
    toSequence: run.toSequence,
    progress: {
      checkedThrough,
      total,
      percent: total === 0 ? 100 : Math.floor(((checkedThrough - run.fromSequence + 1) * 100) / total),
    },
    recordsChecked: run.cursor.recordsChecked,
    brokenCount: run.cursor.brokenCount,
    valid: run.valid,
    startedAt: run.startedAt,
    completedAt: run.completedAt,
    ledgerRecordId: run.ledgerRecordId,
    backgroundVerificationId: run.backgroundVerificationId,
    requestedBy: JSON.parse(run.requestedBy) as Actor,
  };
}

export function resultOf(run: VerificationRun) {
  return {
    complete: run.status === 'COMPLETED',
    valid: run.valid,
    checkedFrom: run.fromSequence,
    checkedThrough: Math.min(run.cursor.nextSequence - 1, run.toSequence),
    recordsChecked: run.cursor.recordsChecked,
    brokenCount: run.cursor.brokenCount,
    brokenRecords: run.brokenRecords,
  };
}

export async function integrityStatus(deps: Deps, firmId: string) {
  const [head, runs] = await Promise.all([readHead(deps, firmId), recentRuns(deps, firmId, 50)]);
  const last = runs.find((r) => r.status === 'COMPLETED') ?? null;
  return {
    firmId,
    totalRecords: head.sequenceNumber,
    lastVerification: last ? { ...presentRun(last), result: resultOf(last) } : null,
    recentVerifications: runs.slice(0, 10).map(presentRun),
  };
}

export async function findVerification(deps: Deps, firmId: string, id: string) {
  const run = await getRun(deps, firmId, id);
  if (!run) throw new NotFoundError('Verification not found');
  return { verification: presentRun(run), result: resultOf(run) };
}
