import { randomUUID } from 'node:crypto';
import { MAX_DELAY_SECONDS } from '../ports/queue.js';
import { checkpointIntervalMs } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import { readHead } from '../store/ledger-store.js';
import {
  readLatestCheckpoint,
  readLogLease,
  readLogTree,
  releaseLogLease,
  renewLogLease,
  takeLogLease,
  type StoredCheckpoint,
} from '../store/log-store.js';
import { publishCheckpoint } from './log-checkpoint.js';
import { reserveCheckpointSigns } from './log-checkpoint-budget.js';
import { integrateStep, type IntegrationStep } from './log-integrator.js';
import { queueWitnessSubmission } from './witness-queue.js';

/**
 * One run of the `log-checkpoint` worker for a firm (issue 31; docs/architecture.md, "Verifiable log"). Runs are
 * queued by the sequencer's holder (at most two per firm per interval window and process, the second delivered
 * after the window's end: shared/ledger-writer/log-trigger.ts), by the log repair sweep, and by runs themselves.
 * A run takes the firm's log lease (someone holding it: the run ends; the holder re-reads the head after its
 * release and so covers what this run was sent for; released by a holder whose checkpoint already covers the
 * commits the run was sent for: the run ends too, see coveredAlready), integrates up to the head in bounded steps (lease renewed),
 * and signs and stores one checkpoint if the tree grew; while the firm keeps committing it keeps the lease and
 * signs one checkpoint per interval (whileHeld). When the firm's last checkpoint is younger than
 * CHECKPOINT_INTERVAL_MS, it waits for the rest of the interval holding the lease, if that is short
 * (IN_PROCESS_WAIT_MAX_MS) and within its budget, before it integrates (a busy firm's rounds so integrate once
 * each), then integrates what was committed and signs; a longer
 * wait queues it for when the interval is over (SQS delay, whole seconds) instead of sleeping on an instance: see
 * signingDecision. It waits for the account's Sign budget when that is spent. After releasing the lease
 * it re-reads the head: records committed meanwhile start another round. A firm with no new records gets no
 * checkpoint. Out of time, it hands the rest to a new message (the one-time build of a large ledger goes on so).
 */

/**
 * The longest a run waits in-process, lease held, for the firm's interval to be over before it signs. The first
 * suspect of bench/log's slow commit → checkpoint (docs/benchmarks.md, not yet measured per hop): re-queueing with
 * SQS's whole-second delaySeconds turns a wait of a few hundred ms into one or two seconds and a further trip
 * through the worker pool.
 * Waiting costs at most this much of one invocation per firm per interval; other runs for the firm meanwhile find
 * the lease held and end at once. Longer waits (a long CHECKPOINT_INTERVAL_MS) still go back to the queue.
 */
export const IN_PROCESS_WAIT_MAX_MS = 2_000;

/** What a run does with a grown tree: sign now, wait in-process then sign, or queue itself for later. */
export type SigningDecision =
  { kind: 'sign' } | { kind: 'wait'; ms: number } | { kind: 'requeue'; delaySeconds: number };

/**
 * The decision for a tree that grew, at `now` (epoch ms), given the instant the interval since the last
 * checkpoint is over (`signAfter`, 0 when there is none) and the run's `deadline`: sign at once when the interval
 * is over; wait in-process when the rest is at most IN_PROCESS_WAIT_MAX_MS and ends before the deadline; else
 * re-queue with the (whole-second, rounded up: never early) delay.
 */
export function signingDecision(now: number, signAfter: number, deadline: number): SigningDecision {
  const wait = signAfter - now;
  if (wait <= 0) return { kind: 'sign' };
  if (wait <= IN_PROCESS_WAIT_MAX_MS && now + wait < deadline) return { kind: 'wait', ms: wait };
  return { kind: 'requeue', delaySeconds: Math.min(MAX_DELAY_SECONDS, Math.ceil(wait / 1000)) };
}

export interface LogCheckpointMessage {
  firmId: string;
  /**
   * Set by the write path's trigger (shared/ledger-writer/log-trigger.ts): the message stands for records
   * committed before it was sent, `upTo` the last of them when the sender knew it (a trailing message stands for
   * the rest of its window too, so it has none). A run for commits that the latest checkpoint already covers ends
   * without taking the lease. The repair sweep's and a run's own messages have none: they always integrate
   * (LOGTREE may be behind a checkpoint after a loss).
   */
  commits?: { upTo?: number };
}

/** A log lease lasts this long unless renewed: the longest a dead holder delays the firm's checkpoints. */
export const LOG_LEASE_TTL_MS = 15_000;

export interface RunResult {
  /** Checkpoints this run stored. */
  checkpoints: number;
  /** Leaves this run integrated. */
  integrated: number;
  /** The run ended early because another instance held the lease. */
  leaseHeld: boolean;
  /** The run ran out of time and queued the rest. */
  continued: boolean;
}

export async function runLogCheckpoint(
  deps: Deps,
  message: LogCheckpointMessage,
  budgetMs: number,
): Promise<RunResult> {
  const deadline = Date.now() + budgetMs;
  const result: RunResult = { checkpoints: 0, integrated: 0, leaseHeld: false, continued: false };
  const { firmId } = message;
  const holder = randomUUID();
  for (let pass = 0; ; pass++) {
    const lease = await readLogLease(deps, firmId);
    if (lease.held) {
      result.leaseHeld = true;
      return result;
    }
    if (pass === 0 && (await coveredAlready(deps, message, lease.covered))) return result;
    if (!(await takeLogLease(deps, firmId, holder, LOG_LEASE_TTL_MS))) {
      result.leaseHeld = true;
      return result;
    }
    let round: Round;
    let covered: number | undefined;
    try {
      round = await whileHeld(deps, firmId, holder, deadline);
      covered = round.covered;
    } finally {
      await releaseLogLease(deps, firmId, holder, covered).catch((error: unknown) =>
        logger.warn('Releasing the log lease failed; it runs out', { firmId, error: error as Error }),
      );
    }
    result.checkpoints += round.checkpoints;
    result.integrated += round.integrated;
    if (round.outOfTime || round.requeueSeconds !== undefined) {
      await deps.queue.send('log-checkpoint', { firmId }, { delaySeconds: round.requeueSeconds ?? 0 });
      result.continued = true;
      return result;
    }
    // Release, then re-check: a record committed while the lease was held may have had its run end at the lease.
    if (!round.progressed) return result;
    const [tree, head] = await Promise.all([readLogTree(deps, firmId), readHead(deps, firmId)]);
    if (head.sequenceNumber <= (tree?.size ?? 0)) return result;
  }
}

/**
 * Whether a message sent for commits finds them in a checkpoint already, by what the lease's last holder said it
 * covered: its `upTo`, or (a trailing message) the chain head read now, which is at or past every commit made
 * before the message was sent. Under load most runs are such (two or three a firm per interval and process, most
 * delivered after the holder that covered them let go): they end on a read or two, with no write.
 */
async function coveredAlready(
  deps: Deps,
  message: LogCheckpointMessage,
  covered: number | undefined,
): Promise<boolean> {
  if (!message.commits || covered === undefined) return false;
  const upTo = message.commits.upTo ?? (await readHead(deps, message.firmId)).sequenceNumber;
  return upTo <= covered;
}

interface Round {
  checkpoints: number;
  integrated: number;
  /** Something was integrated or signed (a round that did nothing does not start another). */
  progressed: boolean;
  outOfTime: boolean;
  /** The tree grew but the last checkpoint is younger than the interval, by more than a run waits: retry then. */
  requeueSeconds?: number;
  /** The size of the latest checkpoint the round knew stored (said in the released lease). */
  covered: number | undefined;
}

/**
 * Integrates and signs while holding the lease: one checkpoint per interval for as long as the firm keeps
 * committing, so a busy firm's run keeps its lease from one checkpoint to the next (no release, re-acquire and
 * re-reads between them). It returns once nothing was committed since its last checkpoint (the caller releases
 * the lease and re-reads the head), out of time, or when the rest of the interval is too long to wait in-process.
 */
async function whileHeld(deps: Deps, firmId: string, holder: string, deadline: number): Promise<Round> {
  const lease = leaseKeeper(deps, firmId, holder);
  let latest = await readLatestCheckpoint(deps, firmId);
  const round: Round = {
    checkpoints: 0,
    integrated: 0,
    progressed: false,
    outOfTime: false,
    covered: latest?.size,
  };
  for (;;) {
    // A busy firm's last checkpoint is younger than the interval at every pass: wait out the rest first, then
    // integrate once, rather than integrate, wait and integrate again (each integration reads the head, the rows
    // and the tiles and writes tiles and LOGTREE; bench/log counts them in the log's cost).
    const early = signingDecision(Date.now(), signAfterOf(latest), deadline);
    if (early.kind === 'wait' && !(await lease.holdFor(early.ms))) return round;
    let step: IntegrationStep;
    for (;;) {
      step = await integrateStep(deps, firmId);
      round.integrated += step.added;
      if (step.added > 0) round.progressed = true;
      if (!(await lease.keep())) return round;
      if (step.size >= step.head || step.gapAt !== undefined || step.lostRace) break;
      if (Date.now() > deadline) {
        round.outOfTime = true;
        return round;
      }
    }
    // The tree as this run integrated it, or as another integrator left it (a lost race).
    const tree = step.lostRace
      ? await readLogTree(deps, firmId)
      : step.root && { size: step.size, root: step.root };
    if (!tree || tree.size <= (latest?.size ?? 0)) return round;
    const decision = signingDecision(Date.now(), signAfterOf(latest), deadline);
    if (decision.kind === 'requeue') return { ...round, requeueSeconds: decision.delaySeconds };
    if (decision.kind === 'wait') continue; // waited out at the top of the next pass
    if (!(await lease.holdFor(await reserveCheckpointSigns(deps)))) return round;
    const stored = await publishCheckpoint(deps, firmId, tree);
    round.progressed = true;
    if (stored) {
      round.checkpoints += 1;
      await queueWitnessSubmission(deps, firmId, tree.size);
    }
    // Another integrator signed this size or a larger one first (the lease makes that rare): read what it signed.
    latest = stored ?? (await readLatestCheckpoint(deps, firmId));
    round.covered = latest?.size;
    if (Date.now() > deadline) {
      round.outOfTime = true;
      return round;
    }
    // Nothing committed since: the caller releases the lease (and re-reads the head after, for a last commit).
    if ((await readHead(deps, firmId)).sequenceNumber <= (latest?.size ?? 0)) return round;
  }
}

/** At most one checkpoint per firm per interval: the instant the interval since `latest` is over (0: none yet). */
function signAfterOf(latest: StoredCheckpoint | undefined): number {
  return latest ? Date.parse(latest.signedAt) + checkpointIntervalMs() : 0;
}

/** Renews the lease when half of it has passed; `holdFor` sleeps while keeping it. False once it was lost. */
function leaseKeeper(deps: Deps, firmId: string, holder: string) {
  let renewedAt = Date.now();
  const keep = async (): Promise<boolean> => {
    if (Date.now() - renewedAt < LOG_LEASE_TTL_MS / 2) return true;
    renewedAt = Date.now();
    const kept = await renewLogLease(deps, firmId, holder, LOG_LEASE_TTL_MS);
    if (!kept) logger.warn('The log lease was lost; another integrator goes on', { firmId });
    return kept;
  };
  const holdFor = async (ms: number): Promise<boolean> => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      await sleep(Math.min(until - Date.now(), LOG_LEASE_TTL_MS / 3));
      if (!(await keep())) return false;
    }
    return true;
  };
  return { keep, holdFor };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
