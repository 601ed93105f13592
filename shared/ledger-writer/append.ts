import { randomUUID } from 'node:crypto';
import { newId } from '../ids.js';
import type { LedgerEventType } from '../ledger/event-types.js';
import type { Actor, LedgerRecord } from '../ledger/record.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import type { TransactItem } from '../store/conditional-write.js';
import { LOST_RACE, type LostRace } from '../store/lost-race.js';
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
  const result = await appendOnce(deps, input, options.with);
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
): Promise<Sequenced> {
  const recordId = newId('record');
  const timestampToken = `\u0000record-timestamp:${randomUUID()}`;
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
    extras:
      typeof withRecord === 'function'
        ? withRecord({ id: recordId, timestamp: timestampToken })
        : (withRecord ?? []),
    timestampToken,
  };
  return sequence(deps, append);
}
