import { AsyncLocalStorage } from 'node:async_hooks';
import type { TransactItem } from './conditional-write.js';

/**
 * A request's slot under its firm's concurrency cap (docs/architecture.md §5, "The concurrency cap"), given back
 * in the request's first ledger append's own transaction: the slot's give-back (an unconditional REMOVE of its
 * attribute on the firm's bucket item, shared/store/rate-limit-store.ts) rides along as one more extra write, so
 * an admitted append costs no give-back call of its own. A request with no append, or whose append failed, gives
 * its slot back after its answer instead (shared/http/rate-limit.ts).
 *
 * Unconditional, so it can never fail the batch it rides in. Safe because the slot's lease outlasts any request:
 * the slot is still this request's when its append commits. One exception: an append intent whose request
 * answered without it (it died, or stopped waiting: 503), committed later by the next holder, may free a slot
 * another request took meanwhile; the cap is then exceeded by one request, once.
 */
interface SlotScope {
  readonly giveBack: TransactItem;
  /** An append carrying the give-back is on its way. */
  riding: boolean;
  /** The give-back committed with an append. */
  given: boolean;
  /** The request has answered: later work it left running carries nothing. */
  closed: boolean;
}

const scope = new AsyncLocalStorage<SlotScope>();

/** Runs a request's function with its slot's give-back in context; answers whether an append carried it. */
export async function runHoldingSlot<T>(
  giveBack: TransactItem,
  fn: () => Promise<T>,
): Promise<{ outcome: PromiseSettledResult<T>; given: boolean }> {
  const current: SlotScope = { giveBack, riding: false, given: false, closed: false };
  const [outcome] = await Promise.allSettled([scope.run(current, fn)]);
  current.closed = true;
  return { outcome: outcome!, given: current.given };
}

/**
 * The slot's give-back for the append about to be made, when the request holds a slot not yet given back and
 * no other append of it carries the give-back now; `settle` must see whether that append committed.
 */
export function slotGiveBack(): { item: TransactItem; settle: (committed: boolean) => void } | undefined {
  const current = scope.getStore();
  if (!current || current.closed || current.riding || current.given) return undefined;
  current.riding = true;
  return {
    item: current.giveBack,
    settle: (committed) => {
      current.riding = false;
      if (committed) current.given = true;
    },
  };
}
