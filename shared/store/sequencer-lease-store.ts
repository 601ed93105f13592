import type { Deps } from '../runtime/deps.js';
import { writeConditionally, type TransactItem } from './conditional-write.js';
import { send } from './dynamo.js';
import { keys } from './keys.js';

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

/** Takes the lease when nobody holds it or it has run out; true when `holder` now holds it. */
export async function acquireLease(
  deps: Deps,
  firmId: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> {
  const now = deps.clock.now().getTime();
  const outcome = await writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.ledger,
        Item: { ...keys.sequencerLease(firmId), holder, until: now + ttlMs },
        ConditionExpression: 'attribute_not_exists(pk) OR #until < :now',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':now': now },
      },
    },
  ]);
  return outcome.status === 'committed';
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

/** Gives the lease up, if `holder` still holds it. */
export async function releaseLease(deps: Deps, firmId: string, holder: string): Promise<void> {
  await writeConditionally(deps, [leaseReleaseItem(deps, firmId, holder)]);
}

/**
 * The lease's release as a transaction item, conditional on `holder` still holding it: a holder committing what
 * it expects to be its last batch gives the lease up in the same transaction (ledger-writes.ts, commitBatch).
 */
export function leaseReleaseItem(deps: Deps, firmId: string, holder: string): TransactItem {
  return {
    Delete: {
      TableName: deps.tables.ledger,
      Key: keys.sequencerLease(firmId),
      ConditionExpression: 'holder = :me',
      ExpressionAttributeValues: { ':me': holder },
    },
  };
}

/** The lease as stored (strongly consistent: askers use it to decide whether to take over). */
export async function readLease(deps: Deps, firmId: string): Promise<Lease | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.ledger,
    Key: keys.sequencerLease(firmId),
    ConsistentRead: true,
  });
  return Item ? { holder: Item.holder as string, until: Item.until as number } : null;
}
