/**
 * The verification sweep (issue 32, "the queue refusing messages must delay work, never lose it"): a
 * verification run lives on as `integrity-verify` messages, one after another. A message the queue refused (the
 * API's send, a worker's re-queue past its redeliveries) or dead-lettered leaves its run RUNNING with no one to
 * continue it. Every run still RUNNING is in the main table's sparse sweep index by its last progress
 * (shared/store/integrity-store.ts); this sweep re-queues each that has made no progress for `staleMs`, and its
 * worker resumes it from the saved cursor.
 */
import { DependencyUnavailableError } from '../../errors.js';
import { isoNow } from '../../ports/clock.js';
import type { Deps } from '../../runtime/deps.js';
import { logger, VERIFICATION_STUCK_LOG } from '../../runtime/logger.js';
import { dropSweepEntry, getRun, markRequeued, staleRuns } from '../../store/integrity-store.js';
import type { ContinueMessage } from './verification-runs.js';

/**
 * How long a run may go without saving progress before the sweep re-queues it: well above what a live run ever
 * goes without (a worker saves after every chunk of 1,000 rows, hands on after 90 s, and a failed delivery comes
 * back after the queue's 180 s visibility timeout). A run re-queued while a message of its own is still on its way
 * costs one chunk's read: the two deliveries race on the cursor and the loser stops (saveProgress).
 */
export const VERIFY_STALE_MS = 10 * 60_000;

/** Runs handled per sweep; the rest stay in the index for the next sweep. */
export const VERIFY_SWEEP_BATCH = 100;

/** Logged when re-queuing a stale run failed; it stays in the index for the next sweep. */
export const VERIFY_REQUEUE_FAILED_LOG = 'Re-queuing a stalled verification failed; the next sweep retries';

/** Logged for every run the sweep re-queued. */
export const VERIFY_REQUEUED_LOG = 'A verification without progress was re-queued';

/**
 * From this re-queue on (half an hour without progress at the default stale period), a run's re-queue is logged
 * as VERIFICATION_STUCK_LOG (ERROR, alarmed) instead: its deliveries keep failing. The sweep goes on re-queuing it,
 * as the cause may be an outage that outlasts the alarm; a run is never given up on, since a run abandoned
 * would leave the firm's chain unverified without a word.
 */
export const VERIFY_STUCK_REQUEUES = 3;

/** Runs handled at once. */
const RUNS_AT_ONCE = 8;

export interface VerificationSweepResult {
  /** Stale entries the index listed. */
  found: number;
  /** Runs re-queued (a message sent). */
  requeued: number;
  /** Entries of runs no longer running, taken out of the index. */
  dropped: number;
  /** Runs whose re-queue failed (the queue refused it); the next sweep tries again. */
  failed: number;
}

/**
 * Re-queues every run that has been RUNNING without progress for `staleMs`. Each run is read again (strongly
 * consistent: the index lags) and re-queued only when it is still running and still without progress; the run's
 * entry then moves to now, so a run whose messages keep failing is re-queued once per stale period, not once per
 * sweep. A send the queue refuses leaves the entry where it was: the next sweep tries again.
 */
export async function sweepStaleVerifications(
  deps: Deps,
  staleMs = VERIFY_STALE_MS,
): Promise<VerificationSweepResult> {
  const now = isoNow(deps.clock);
  const before = new Date(Date.parse(now) - staleMs).toISOString();
  const stale = await staleRuns(deps, before, VERIFY_SWEEP_BATCH);
  const result: VerificationSweepResult = { found: stale.length, requeued: 0, dropped: 0, failed: 0 };
  for (let i = 0; i < stale.length; i += RUNS_AT_ONCE)
    await Promise.all(
      stale.slice(i, i + RUNS_AT_ONCE).map(async ({ firmId, id }) => {
        try {
          const outcome = await requeueIfStale(deps, firmId, id, before, now);
          if (outcome !== 'fresh') result[outcome]++;
        } catch (error) {
          result.failed++;
          // The queue or the table down is an outage the next sweep outlives; anything else is a fault of ours.
          logger[error instanceof DependencyUnavailableError ? 'warn' : 'error'](VERIFY_REQUEUE_FAILED_LOG, {
            firmId,
            verificationId: id,
            error: error as Error,
          });
        }
      }),
    );
  return result;
}

async function requeueIfStale(
  deps: Deps,
  firmId: string,
  id: string,
  before: string,
  now: string,
): Promise<'requeued' | 'dropped' | 'fresh'> {
  const run = await getRun(deps, firmId, id);
  if (!run) return 'fresh'; // deleted with its entry
  if (run.status !== 'RUNNING') return (await dropSweepEntry(deps, firmId, id)) ? 'dropped' : 'fresh';
  if (run.updatedAt >= before) return 'fresh'; // progress saved since the index was read
  await deps.queue.send('integrity-verify', { firmId, verificationId: id } satisfies ContinueMessage);
  await markRequeued(deps, run, now);
  const requeues = (run.requeues ?? 0) + 1;
  const details = { firmId, verificationId: id, lastProgressAt: run.updatedAt, requeues };
  if (requeues >= VERIFY_STUCK_REQUEUES) logger.error(VERIFICATION_STUCK_LOG, details);
  else logger.warn(VERIFY_REQUEUED_LOG, details);
  return 'requeued';
}
