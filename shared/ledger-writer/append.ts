import { randomUUID } from 'node:crypto';
import { newId } from '../ids.js';
import type { LedgerEventType } from '../ledger/event-types.js';
import type { Actor, LedgerRecord } from '../ledger/record.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import type { TransactItem } from '../store/conditional-write.js';
import { markWith } from '../store/idempotency-context.js';
import { LOST_RACE, type LostRace } from '../store/lost-race.js';
import { slotGiveBack } from '../store/write-slot-context.js';
import type { PendingAppend } from './append-batch.js';
import type { Sequenced } from './batch-commit.js';
import { sequence } from './sequencer.js';

export type { Actor } from '../ledger/record.js';

export interface AppendInput {
  firmId: string;
  eventType: LedgerEventType;
  actor: Actor;
  /** sha256 of the document for document events; empty string otherwise. */
  documentHash?: string;
  documentMetadata: Record<string, unknown>;
  reviewJobId?: string | null;
}

/** What a write committed with a record may know of it before it is sealed: its id and its timestamp. */
export interface RecordRef {
  id: string;
  /** The record's timestamp (a placeholder the sequencer replaces with the sealed value, wherever it appears). */
  timestamp: string;
}

/**
 * Writes committed atomically with the record (state change and evidence succeed or fail together); a
 * function receives the record's id and timestamp, for writes that name them. They must be plain JSON data:
 * another instance may be the one that commits them.
 */
export type WithRecord = TransactItem[] | ((record: RecordRef) => TransactItem[]);

export interface AppendOptions {
  with?: WithRecord;
  /**
   * Items created with the record under ids made for this request (a new incident, say), each conditioned only
   * on `attribute_not_exists(pk)` against a collision: committed with the record like `with`, but never checked
   * before signing (one transaction of condition checks fewer per batch: nothing can be in their way). A
   * condition that could fail for a reason (a unique name, a state) belongs in `with`.
   */
  creates?: WithRecord;
  /** Thrown when one of `with`'s conditions fails; receives the index of the failed item. */
  onConflict?: (failedItem: number) => Error;
}

/**
 * Appends a record to a firm's chain and returns it once committed.
 *
 * The append is sequenced with every other append to the firm, from this and every other instance, by group
 * commit (./sequencer.ts): batches of records are sealed in order, signed in parallel and committed in one
 * DynamoDB transaction whose conditions keep sequence numbers unique, gapless and strictly increasing. An
 * append whose own condition (`with`) fails fails alone, with `onConflict`'s error, and spends no signature.
 * After the commit the holder copies the batch's records to the immutable store and clears their outbox entries
 * (./archive.ts archiveBatch); if it dies in between, the outbox sweep (functions/workers/ledger-outbox-sweep)
 * finishes the copies.
 */
export async function appendRecord(
  deps: Deps,
  input: AppendInput,
  options: AppendOptions = {},
): Promise<LedgerRecord> {
  const result = await appendOnce(deps, input, options.with, options.creates);
  if (result.status === 'committed') return result.record;
  throw (
    options.onConflict?.(result.failedItem) ?? new Error(`Condition of write ${result.failedItem} failed`)
  );
}

/**
 * appendRecord for a state change another writer may have made first: when a condition of `with` fails,
 * nothing is written and the answer is LOST_RACE (for retryOnLostRace, or "someone else did it").
 */
export async function appendUnlessRaced(
  deps: Deps,
  input: AppendInput,
  withRecord: WithRecord,
): Promise<LedgerRecord | LostRace> {
  const result = await appendOnce(deps, input, withRecord);
  return result.status === 'committed' ? result.record : LOST_RACE;
}

async function appendOnce(
  deps: Deps,
  input: AppendInput,
  withRecord: WithRecord | undefined,
  creates?: WithRecord,
): Promise<Sequenced> {
  const recordId = newId('record');
  const timestampToken = `\u0000record-timestamp:${randomUUID()}`;
  const writes = (given: WithRecord | undefined) =>
    typeof given === 'function' ? given({ id: recordId, timestamp: timestampToken }) : (given ?? []);
  const checked = writes(withRecord);
  const created = writes(creates);
  const extras = [...checked, ...created];
  // A request holding an Idempotency-Key marks it used in the record's own transaction (issue 19, part 3).
  const mark = markWith(deps, recordId);
  // A request holding a slot under its firm's concurrency cap gives it back in the same transaction (issue 19).
  const giveBack = slotGiveBack();
  const append: PendingAppend = {
    recordId,
    firmId: input.firmId,
    eventType: input.eventType,
    actor: input.actor,
    documentHash: input.documentHash ?? '',
    // Exactly what JSON (and so DynamoDB and the canonical form) will hold: no undefined, no class instances.
    documentMetadata: JSON.parse(JSON.stringify(input.documentMetadata)) as Record<string, unknown>,
    reviewJobId: input.reviewJobId ?? null,
    requestedAt: isoNow(deps.clock),
    extras: [...extras, ...(mark ? [mark.item] : []), ...(giveBack ? [giveBack.item] : [])],
    timestampToken,
    ...(created.length > 0 ? { unchecked: created.map((_, i) => checked.length + i) } : {}),
  };
  let result: Sequenced | undefined;
  try {
    result = await sequence(deps, append);
  } finally {
    giveBack?.settle(result?.status === 'committed');
  }
  if (mark && result.status === 'failed' && result.failedItem === extras.length) throw mark.takenOver();
  if (mark && result.status === 'committed') mark.committed();
  return result;
}
