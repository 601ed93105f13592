import type { Deps } from '../runtime/deps.js';
import { putReplacing, writeConditionally, type TransactItem } from './conditional-write.js';
import { send } from './dynamo.js';
import { keys } from './keys.js';
import type { ChainHead } from './ledger-store.js';

/**
 * The firm's sequencer lease (`SEQUENCER` in the firm's ledger partition): the instance that holds it seals and
 * commits the firm's appends in batches, everyone else leaves intents for it. The lease is only about
 * efficiency (no Sign spent on a position another writer takes): correctness rests on the conditional commit
 * on the chain head, so two holders (a paused holder whose lease ran out) cost wasted signatures, never a fork.
 */
export interface Lease {
  holder: string;
  /** Epoch milliseconds after which anyone may take the lease. */
  until: number;
}

/**
 * What taking the lease found. `head` is the chain head the last holder left when it released the lease (its
 * last commit, or the head it gave up with): a holder that takes a released lease needs no head read. It is
 * null when the lease was never released this way (the firm's first append, a holder that died or ran out): the
 * caller reads the head. A head left by a holder is a hint, never the guarantee: a writer that committed after
 * it (a holder whose lease ran out) makes the next commit find the head moved, and the batch is placed again.
 */
export type LeaseTaken =
  { readonly taken: false } | { readonly taken: true; readonly head: ChainHead | null };

/** Takes the lease when nobody holds it (never held, released) or it has run out. */
export async function acquireLease(
  deps: Deps,
  firmId: string,
  holder: string,
  ttlMs: number,
): Promise<LeaseTaken> {
  const now = deps.clock.now().getTime();
  const outcome = await putReplacing(deps, {
    TableName: deps.tables.ledger,
    Item: { ...keys.sequencerLease(firmId), holder, until: now + ttlMs },
    ConditionExpression: 'attribute_not_exists(pk) OR #until < :now',
    ExpressionAttributeNames: { '#until': 'until' },
    ExpressionAttributeValues: { ':now': now },
  });
  if (outcome.status !== 'committed') return { taken: false };
  return { taken: true, head: releasedHead(outcome.old) };
}

/** The head a released lease item holds; null for a lease that was held (and ran out) or never existed. */
function releasedHead(old: Record<string, unknown> | undefined): ChainHead | null {
  if (!old || old.holder !== undefined || typeof old.headSequenceNumber !== 'number') return null;
  return {
    sequenceNumber: old.headSequenceNumber,
    chainHash: (old.headChainHash as string | null) ?? null,
    timestamp: (old.headTimestamp as string | null) ?? null,
  };
}

/** Extends the lease of its holder; false when it was lost (ran out and was taken). */
export async function renewLease(
  deps: Deps,
  firmId: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> {
  const outcome = await writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.ledger,
        Item: { ...keys.sequencerLease(firmId), holder, until: deps.clock.now().getTime() + ttlMs },
        ConditionExpression: 'holder = :me',
        ExpressionAttributeValues: { ':me': holder },
      },
    },
  ]);
  return outcome.status === 'committed';
}

/** Gives the lease up, if `holder` still holds it, leaving `head` (the chain head it knows) for the next. */
export async function releaseLease(
  deps: Deps,
  firmId: string,
  holder: string,
  head?: ChainHead,
): Promise<void> {
  await writeConditionally(deps, [leaseReleaseItem(deps, firmId, holder, head)]);
}

/**
 * The lease's release as a transaction item, conditional on `holder` still holding it: a holder committing what
 * it expects to be its last batch gives the lease up in the same transaction (ledger-writes.ts, commitBatch),
 * with the head that batch moves the chain to. The released item has no holder and has run out (`until` 0), so
 * every condition on a held lease fails on it; it keeps `head` for the next holder (acquireLease). Without a head
 * (a holder giving up after a failure) the next holder reads it.
 */
export function leaseReleaseItem(deps: Deps, firmId: string, holder: string, head?: ChainHead): TransactItem {
  return {
    Put: {
      TableName: deps.tables.ledger,
      Item: {
        ...keys.sequencerLease(firmId),
        until: 0,
        ...(head
          ? {
              headSequenceNumber: head.sequenceNumber,
              headChainHash: head.chainHash,
              headTimestamp: head.timestamp,
            }
          : {}),
      },
      ConditionExpression: 'holder = :me',
      ExpressionAttributeValues: { ':me': holder },
    },
  };
}

/**
 * Who holds the lease (strongly consistent: askers use it to decide whether to take over); null when nobody
 * does (never held, or released). A lease that ran out is returned as it is: its `until` tells.
 */
export async function readLease(deps: Deps, firmId: string): Promise<Lease | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.ledger,
    Key: keys.sequencerLease(firmId),
    ConsistentRead: true,
  });
  return Item && typeof Item.holder === 'string'
    ? { holder: Item.holder, until: Item.until as number }
    : null;
}
