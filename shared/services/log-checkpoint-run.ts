import { randomUUID } from 'node:crypto';
import { checkpointIntervalMs } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import { readHead } from '../store/ledger-store.js';
import {
  acquireLogLease,
  readLatestCheckpoint,
  readLogTree,
  releaseLogLease,
  renewLogLease,
} from '../store/log-store.js';
import { publishCheckpoint } from './log-checkpoint.js';
import { reserveCheckpointSigns } from './log-checkpoint-budget.js';
import { integrateStep } from './log-integrator.js';

/**
 * One run of the `log-checkpoint` worker for a firm (issue 31; docs/architecture.md, "Verifiable log"). The
 * sequencer's holder sends at most one message per firm per interval window (shared/ledger-writer/
 * log-trigger.ts), with `notBefore` = the window's end; the run waits until then, so every commit of the window
 * happened before it looks. It takes the firm's log lease (someone holding it: the run ends, the holder's
 * re-check after its release covers these commits), integrates up to the head (bounded steps, lease renewed),
 * waits until CHECKPOINT_INTERVAL_MS has passed since the firm's last checkpoint and for the account's Sign
 * budget, signs and stores one checkpoint, releases the lease, then re-reads the head: records committed while
 * it held the lease (whose own runs found it held) start another round. A firm with no new records gets no
 * checkpoint. Out of time, it hands the rest to a new message (the one-time build of a large ledger goes on so).
 */

export interface LogCheckpointMessage {
  firmId: string;
  /** Epoch ms before which the run does not look (the end of its trigger's window); 0: at once. */
  notBefore: number;
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
  if (message.notBefore > Date.now()) await sleep(Math.min(message.notBefore - Date.now(), budgetMs));
  const holder = randomUUID();
  for (;;) {
    if (!(await acquireLogLease(deps, firmId, holder, LOG_LEASE_TTL_MS))) {
      result.leaseHeld = true;
      return result;
    }
    let round: Round;
    try {
      round = await whileHeld(deps, firmId, holder, deadline);
    } finally {
      await releaseLogLease(deps, firmId, holder).catch((error: unknown) =>
        logger.warn('Releasing the log lease failed; it runs out', { firmId, error: error as Error }),
      );
    }
    result.checkpoints += round.checkpoints;
    result.integrated += round.integrated;
    if (round.outOfTime) {
      await deps.queue.send('log-checkpoint', { firmId, notBefore: 0 } satisfies LogCheckpointMessage);
      result.continued = true;
      return result;
    }
    // Release, then re-check: a record committed while the lease was held may have had its run end at the lease.
    if (!round.progressed) return result;
    const [tree, head] = await Promise.all([readLogTree(deps, firmId), readHead(deps, firmId)]);
    if (head.sequenceNumber <= (tree?.size ?? 0)) return result;
  }
}

interface Round {
  checkpoints: number;
  integrated: number;
  /** Something was integrated or signed (a round that did nothing does not start another). */
  progressed: boolean;
  outOfTime: boolean;
}

/** Integrates and signs while holding the lease. */
async function whileHeld(deps: Deps, firmId: string, holder: string, deadline: number): Promise<Round> {
  const round: Round = { checkpoints: 0, integrated: 0, progressed: false, outOfTime: false };
  const lease = leaseKeeper(deps, firmId, holder);
  const integrate = async (): Promise<boolean> => {
    for (;;) {
      const step = await integrateStep(deps, firmId);
      round.integrated += step.added;
      if (step.added > 0) round.progressed = true;
      if (!(await lease.keep())) return false;
      if (step.size >= step.head || step.gapAt !== undefined || step.lostRace) return true;
      if (Date.now() > deadline) {
        round.outOfTime = true;
        return false;
      }
    }
  };
  if (!(await integrate())) return round;
  const latest = await readLatestCheckpoint(deps, firmId);
  let tree = await readLogTree(deps, firmId);
  if (!tree || tree.size <= (latest?.size ?? 0)) return round;
  // At most one checkpoint per interval: wait out the rest of it, then take in what was committed meanwhile.
  const sinceLast = latest ? deps.clock.now().getTime() - Date.parse(latest.signedAt) : Infinity;
  const interval = checkpointIntervalMs();
  if (sinceLast < interval) {
    if (!(await lease.holdFor(interval - sinceLast))) return round;
    if (!(await integrate())) return round;
    tree = (await readLogTree(deps, firmId)) ?? tree;
  }
  if (!(await lease.holdFor(await reserveCheckpointSigns(deps)))) return round;
  if (await publishCheckpoint(deps, firmId, tree)) round.checkpoints += 1;
  round.progressed = true;
  return round;
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
