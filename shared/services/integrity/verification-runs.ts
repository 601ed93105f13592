/**
 * Verification runs: a chain check started by the API (inline within its limits) or continued by the
 * integrity worker from its saved cursor, completed with a CHAIN_VERIFIED record. docs/architecture.md
 * ("Integrity: verification, comparison, restore") explains the modes and the checkpoint.
 */
import { actorOf, type Principal } from '../../domain/auth/principal.js';
import { DependencyUnavailableError } from '../../errors.js';
import {
  checkChunk,
  startCursor,
  type BrokenRecord,
  type StoredRow,
  type VerificationCursor,
} from '../../domain/integrity/chain-check.js';
import { newId } from '../../ids.js';
import { appendUnlessRaced } from '../../ledger-writer/append.js';
import type { Actor } from '../../ledger/record.js';
import { signingKeyHistory } from '../key-history.js';
import type { SigningKeyHistory } from '../../ledger/key-history.js';
import { isoNow } from '../../ports/clock.js';
import type { Deps } from '../../runtime/deps.js';
import { logger, VERIFICATION_FAILED_LOG } from '../../runtime/logger.js';
import { LOST_RACE } from '../../store/lost-race.js';
import {
  advanceCheckpoint,
  completeRunItem,
  getCheckpoint,
  getRun,
  putRun,
  saveProgress,
  type VerificationRun,
} from '../../store/integrity-store.js';
import { queryRowRange, readHead } from '../../store/ledger-store.js';
import { presentRun, resultOf } from './verification-status.js';

/** Records read and checked per step; progress is saved after each. */
export const VERIFY_CHUNK = 1000;

export interface VerifyLimits {
  /** The most records the API call checks itself; the rest continues on the integrity queue. */
  inlineMaxRecords: number;
  /** Time the caller may spend before handing the rest to the queue (API Gateway allows 30 s). */
  budgetMs: number;
}

export interface ContinueMessage {
  firmId: string;
  verificationId: string;
}

/**
 * Starts a verification. A chain that fits the inline limit (or has never been verified) is verified in full,
 * from sequence 1. A longer chain with a checkpoint is verified incrementally, from the checkpoint to the
 * head, inline, while a full re-verification starts in the background. Whatever the call cannot finish
 * within its limits continues on the integrity queue, resumably, from the saved cursor.
 */
export async function startVerification(deps: Deps, principal: Principal, limits: VerifyLimits) {
  const now = isoNow(deps.clock);
  const head = await readHead(deps, principal.firmId);
  const checkpoint = await getCheckpoint(deps, principal.firmId);
  const incremental =
    checkpoint !== null &&
    head.sequenceNumber > limits.inlineMaxRecords &&
    checkpoint.sequenceNumber <= head.sequenceNumber;
  const newRun = (mode: VerificationRun['mode'], trigger: VerificationRun['trigger']): VerificationRun => {
    const fromSequence = mode === 'incremental' ? checkpoint!.sequenceNumber + 1 : 1;
    return {
      id: newId('verification'),
      firmId: principal.firmId,
      mode,
      status: 'RUNNING',
      trigger,
      requestedBy: JSON.stringify(actorOf(principal)),
      fromSequence,
      toSequence: head.sequenceNumber,
      cursor: startCursor(fromSequence, mode === 'incremental' ? checkpoint!.chainHash : null),
      brokenRecords: [],
      startedAt: now,
      updatedAt: now,
      completedAt: null,
      valid: null,
      ledgerRecordId: null,
      backgroundVerificationId: null,
    };
  };

  const run = newRun(incremental ? 'incremental' : 'full', 'api');
  if (incremental) {
    const background = newRun('full', 'background');
    run.backgroundVerificationId = background.id;
    await putRun(deps, background);
    await queueContinuation(deps, background);
  }
  await putRun(deps, run);
  const deadline = Date.now() + limits.budgetMs;
  const finished = await advanceRun(deps, run, deadline, limits.inlineMaxRecords);
  if (!finished) await queueContinuation(deps, run);
  const stored = (await getRun(deps, run.firmId, run.id))!;
  return { verification: presentRun(stored), result: resultOf(stored) };
}

/** Logged when a run's continuation could not be queued; the verification sweep picks the run up later. */
export const VERIFICATION_QUEUE_FAILED_LOG =
  'Queuing the rest of a verification failed; the verification sweep will re-queue it';

/**
 * Hands a stored run's rest to the integrity queue; never throws. A send the queue refuses (issue 32) only delays
 * the run: it stays RUNNING in the sweep index, and the verification sweep re-queues it once it has made no
 * progress for VERIFY_STALE_SECONDS (./verification-sweep.ts). So the request that started it still answers 200
 * with the run RUNNING: a 503 would say nothing was done, and its retry would start a second run beside this one.
 */
async function queueContinuation(deps: Deps, run: VerificationRun): Promise<void> {
  try {
    await deps.queue.send('integrity-verify', {
      firmId: run.firmId,
      verificationId: run.id,
    } satisfies ContinueMessage);
  } catch (error) {
    // A dependency's fault is expected in an outage; anything else (a missing queue, a denied send) is ours.
    logger[error instanceof DependencyUnavailableError ? 'warn' : 'error'](VERIFICATION_QUEUE_FAILED_LOG, {
      firmId: run.firmId,
      verificationId: run.id,
      error: error as Error,
    });
  }
}

/**
 * The integrity worker: continues a run from its saved cursor until done or out of time, then re-queues itself.
 * A re-queue the queue refuses throws: the delivery fails and the queue brings the message back (SQS after the
 * visibility timeout, up to maxReceiveCount; the local queue with backoff), which resumes from the saved cursor.
 * Should the queue refuse for longer than those receives, the message is dead-lettered and the run waits in the
 * sweep index for the verification sweep.
 */
export async function continueVerification(
  deps: Deps,
  message: ContinueMessage,
  budgetMs: number,
): Promise<void> {
  const run = await getRun(deps, message.firmId, message.verificationId);
  if (!run || run.status === 'COMPLETED') return;
  const finished = await advanceRun(deps, run, Date.now() + budgetMs, Number.POSITIVE_INFINITY);
  if (finished === false) await deps.queue.send('integrity-verify', message);
}

/**
 * Checks chunks from the run's cursor until the run is done (then completes it), the deadline passes or the
 * record allowance is spent. Returns true when completed, false when work remains, null when another worker
 * owns the run (its progress save lost the race).
 */
async function advanceRun(
  deps: Deps,
  run: VerificationRun,
  deadline: number,
  maxRecords: number,
): Promise<boolean | null> {
  // The history as this instance sees it (cached for KEY_HISTORY_TTL_MS): every key with its window.
  const keyHistory = await signingKeyHistory(deps);
  // The last sequence of a chunk starting at `from`, within the chunk size and the remaining allowance.
  const chunkEnd = (from: number, allowance: number) =>
    Math.min(from + Math.min(VERIFY_CHUNK, allowance) - 1, run.toSequence);
  const read = (from: number, through: number) => queryRowRange(deps, run.firmId, from, through);
  let checked = 0;
  let from = run.cursor.nextSequence;
  let through = chunkEnd(from, maxRecords);
  let pending: Promise<StoredRow[]> | null = from <= run.toSequence ? read(from, through) : null;
  while (pending) {
    const rows = await pending;
    const allowance = maxRecords - (checked + through - from + 1);
    const more = through < run.toSequence && Date.now() < deadline && allowance > 0;
    const next = { from: through + 1, through: more ? chunkEnd(through + 1, allowance) : 0 };
    // Read the next chunk while this one is checked.
    pending = more ? read(next.from, next.through) : null;
    const { broken, cursor } = await checkInSlices(run.firmId, rows, through, run.cursor, keyHistory);
    const brokenRecords = [...run.brokenRecords, ...broken];
    if (!(await saveProgress(deps, run, run.cursor, cursor, brokenRecords, isoNow(deps.clock)))) {
      await pending?.catch(() => undefined);
      return null;
    }
    run.cursor = cursor;
    run.brokenRecords = brokenRecords;
    checked += through - from + 1;
    ({ from, through } = next);
  }
  if (run.cursor.nextSequence <= run.toSequence) return false;
  await completeRun(deps, run);
  return true;
}

/** Records checked between yields to the event loop, so the read-ahead request makes progress meanwhile. */
const CHECK_SLICE = 100;

async function checkInSlices(
  firmId: string,
  rows: StoredRow[],
  through: number,
  start: VerificationCursor,
  keyHistory: SigningKeyHistory,
): Promise<{ broken: BrokenRecord[]; cursor: VerificationCursor }> {
  const broken: BrokenRecord[] = [];
  let cursor = start;
  while (cursor.nextSequence <= through) {
    const end = Math.min(cursor.nextSequence + CHECK_SLICE - 1, through);
    const slice = rows.filter((r) => r.position >= cursor.nextSequence && r.position <= end);
    const checked = checkChunk(firmId, slice, end, cursor, keyHistory);
    broken.push(...checked.broken);
    cursor = checked.cursor;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { broken, cursor };
}

/** Writes CHAIN_VERIFIED and marks the run completed, atomically; a valid run moves the checkpoint forward. */
async function completeRun(deps: Deps, run: VerificationRun): Promise<void> {
  const valid = run.cursor.brokenCount === 0;
  const at = isoNow(deps.clock);
  const record = await appendUnlessRaced(
    deps,
    {
      firmId: run.firmId,
      eventType: 'CHAIN_VERIFIED',
      actor: JSON.parse(run.requestedBy) as Actor,
      documentMetadata: {
        verificationId: run.id,
        mode: run.mode,
        fromSequence: run.fromSequence,
        toSequence: run.toSequence,
        recordsChecked: run.cursor.recordsChecked,
        valid,
        brokenCount: run.cursor.brokenCount,
        brokenSequenceNumbers: run.brokenRecords.slice(0, 50).map((b) => b.sequenceNumber),
      },
    },
    (sealed) => [completeRunItem(deps, run, valid, sealed.id, at)],
  );
  // Another worker completed the run (a duplicate delivery): its record stands.
  if (record === LOST_RACE) return;
  run.status = 'COMPLETED';
  run.valid = valid;
  run.completedAt = at;
  run.ledgerRecordId = record.id;
  // The CloudWatch metric filter behind the failed-verification alarm matches this message (lib/monitoring.ts).
  if (!valid)
    logger.error(VERIFICATION_FAILED_LOG, {
      firmId: run.firmId,
      verificationId: run.id,
      brokenCount: run.cursor.brokenCount,
    });
  if (valid && run.toSequence > 0)
    await advanceCheckpoint(deps, run.firmId, {
      sequenceNumber: run.toSequence,
      chainHash: run.cursor.previousChainHash!,
      verifiedAt: at,
      verificationId: run.id,
    });
}
