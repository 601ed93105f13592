import { AsyncLocalStorage } from 'node:async_hooks';
import { IdempotencyKeyInUseError } from '../errors.js';
import type { Deps } from '../runtime/deps.js';
import type { TransactItem, WriteOutcome } from './conditional-write.js';
import { send } from './dynamo.js';
import { keys } from './keys.js';

/** A request's hold on its firm's `Idempotency-Key` item (shared/store/idempotency-store.ts). */
export interface IdempotencyClaim {
  firmId: string;
  /** SHA-256 (hex) of the key: the item's key. */
  keyHash: string;
  /** Random, new for every claim: only this claim's writes can mark the key. */
  token: string;
}

export const IDEMPOTENCY_STATE = {
  inProgress: 'IN_PROGRESS',
  committed: 'COMMITTED',
  completed: 'COMPLETED',
} as const;

interface Scope {
  readonly claim: IdempotencyClaim;
  /** The record (or, for other writes, nothing) the key's mark was committed with; undefined until then. */
  carried: { recordId: string | null } | undefined;
  /** The request has answered: later work it left running (timers, in-process queues) carries nothing. */
  closed: boolean;
}

const scope = new AsyncLocalStorage<Scope>();

/**
 * Runs a request's function with its claim in context, so the request's main write carries the key's mark
 * (see markWith). Never throws: answers the function's outcome and what the mark was committed with, if it was.
 */
export async function runWithClaim<T>(
  claim: IdempotencyClaim,
  fn: () => Promise<T>,
): Promise<{ outcome: PromiseSettledResult<T>; carried: { recordId: string | null } | undefined }> {
  const current: Scope = { claim, carried: undefined, closed: false };
  const [outcome] = await Promise.allSettled([scope.run(current, fn)]);
  current.closed = true;
  return { outcome: outcome!, carried: current.carried };
}

/**
 * Runs work that serves more than the current request (the sequencer's loop) outside its context, so none of
 * its writes can carry the request's mark.
 */
export function outsideRequest<T>(fn: () => T): T {
  return scope.exit(fn);
}

/**
 * The key's mark for the write about to be made, when a claim waits for one: the request's first conditional
 * write (of the main table, through writeConditionally or updateConditionally) or ledger append (appendRecord)
 * takes it into its own transaction, so the write and "this key was used" commit together or not at all.
 * `settle` must see the write's outcome. Undefined outside a request with a key, once the mark is committed,
 * and after the request answered.
 */
export function markWith(deps: Deps, recordId: string | null): IdempotencyMark | undefined {
  const current = scope.getStore();
  if (!current || current.carried || current.closed) return undefined;
  return new IdempotencyMark(deps, current, recordId);
}

export class IdempotencyMark {
  readonly item: TransactItem;

  constructor(
    private readonly deps: Deps,
    private readonly owner: Scope,
    private readonly recordId: string | null,
  ) {
    this.item = committedMarkItem(deps, owner.claim, recordId);
  }

  /** The write committed, the mark with it. */
  committed(): void {
    this.owner.carried = { recordId: this.recordId };
  }

  /**
   * The mark's own condition failed (the write committed nothing): the key is no longer this request's (its
   * lock ran out and a retry took it over, or it expired), so this request must not write.
   */
  takenOver(): IdempotencyKeyInUseError {
    return new IdempotencyKeyInUseError(
      'A retry with the same Idempotency-Key took this request over; nothing was written by this one',
      1,
    );
  }

  /**
   * Settles the outcome of a write whose items were `items` followed by the mark: committed marks the key;
   * a failed mark throws takenOver(), unless the write itself committed (see markedHere); other failed
   * conditions are reported at the caller's own indexes.
   */
  async settle(outcome: WriteOutcome, itemCount: number): Promise<WriteOutcome> {
    if (outcome.status === 'committed') this.committed();
    if (outcome.status !== 'condition-failed' || !outcome.failedItems.includes(itemCount)) return outcome;
    if (!(await this.markedHere())) throw this.takenOver();
    this.committed();
    return { status: 'committed' };
  }

  /**
   * Whether the key holds this claim's mark (COMMITTED with its token) although the write reported its
   * condition failed: the SDK retries a write whose answer was lost (a connection reset), and the retry of an
   * attempt that was applied fails the conditions it used. Only one write of a request carries the mark, so
   * the mark being there means this write committed.
   */
  private async markedHere(): Promise<boolean> {
    const { Item } = await send(this.deps.db, 'Get', {
      TableName: this.deps.tables.main,
      Key: keys.idempotencyKey(this.owner.claim.firmId, this.owner.claim.keyHash),
      ConsistentRead: true,
    });
    return Item?.token === this.owner.claim.token && Item?.state === IDEMPOTENCY_STATE.committed;
  }
}

/**
 * IN_PROGRESS → COMMITTED, conditional on the claim's token: a write left pending by a request whose key was
 * taken over meanwhile (a crashed instance's append intent committed later by another holder) fails alone.
 */
function committedMarkItem(deps: Deps, claim: IdempotencyClaim, recordId: string | null): TransactItem {
  return {
    Update: {
      TableName: deps.tables.main,
      Key: keys.idempotencyKey(claim.firmId, claim.keyHash),
      UpdateExpression: 'SET #state = :committed, recordId = :recordId',
      ConditionExpression: '#state = :inProgress AND #token = :token',
      ExpressionAttributeNames: { '#state': 'state', '#token': 'token' },
      ExpressionAttributeValues: {
        ':committed': IDEMPOTENCY_STATE.committed,
        ':inProgress': IDEMPOTENCY_STATE.inProgress,
        ':token': claim.token,
        ':recordId': recordId,
      },
    },
  };
}
