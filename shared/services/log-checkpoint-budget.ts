import { tokenMicros, type WritePolicy } from '../domain/rate-limit/token-bucket.js';
import { checkpointSignBudgetPerSecond } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { advanceCheckpointBudget, readCheckpointBudget } from '../store/log-store.js';
import { LOST_RACE, retryOnLostRace } from '../store/lost-race.js';

/**
 * The account's checkpoint Sign budget (issue 31; docs/architecture.md, "Verifiable log: cadence and budget").
 * Checkpoint Signs share the KMS Sign quota with records: N firms with new records cost 2·N / interval Signs
 * per second (2 per checkpoint). CHECKPOINT_SIGN_BUDGET_PER_S caps that for the account: the project's token
 * bucket (shared/domain/rate-limit/token-bucket.ts, its GCRA form: one `tat`) at budget/2 checkpoints per
 * second, one second's worth of burst, kept in one ledger-table item. A checkpoint is never refused: it reserves
 * the next slot (tat moves by one token) and waits until the slot comes, so when many firms are active each
 * firm's checkpoints come further apart than CHECKPOINT_INTERVAL_MS (the interval stretches), records keep the
 * rest of the quota.
 */

/** Checkpoints per second and burst for a Sign budget (2 Signs a checkpoint); undefined: no budget. */
export function checkpointPolicy(signsPerSecond: number): WritePolicy | undefined {
  if (signsPerSecond <= 0) return undefined;
  const ratePerSecond = signsPerSecond / 2;
  return { ratePerSecond, burst: Math.max(1, Math.ceil(ratePerSecond)) };
}

/**
 * A reservation of the bucket at `now` (µs) given its tat (undefined: never used): the new tat and the instant
 * (µs) the reserved token is there. Tokens are handed out in order, each T after the last, up to `burst` at once.
 */
export function reserveSlot(
  policy: WritePolicy,
  now: number,
  tat: number | undefined,
): { nextTat: number; readyAt: number } {
  const token = tokenMicros(policy);
  const nextTat = Math.max(tat ?? now, now) + token;
  return { nextTat, readyAt: Math.max(now, nextTat - policy.burst * token) };
}

/** Reserves one checkpoint's Signs; resolves with how long (ms) to wait before signing (0 without a budget). */
export async function reserveCheckpointSigns(deps: Deps): Promise<number> {
  const policy = checkpointPolicy(checkpointSignBudgetPerSecond());
  if (!policy) return 0;
  return retryOnLostRace(
    async () => {
      const tat = await readCheckpointBudget(deps);
      const now = deps.clock.now().getTime() * 1000;
      const { nextTat, readyAt } = reserveSlot(policy, now, tat);
      if (!(await advanceCheckpointBudget(deps, tat, nextTat))) return LOST_RACE;
      return Math.ceil((readyAt - now) / 1000);
    },
    { attempts: 20, exhausted: () => new Error('The checkpoint Sign budget is too contended') },
  );
}
