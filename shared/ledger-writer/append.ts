import { newId } from '../ids.js';
import type { LedgerEventType } from '../ledger/event-types.js';
import { canonicalJson } from '../ledger/hashing.js';
import type { Actor, LedgerRecord, RecordPayload } from '../ledger/record.js';
import { sealRecord } from '../ledger/seal.js';
import { publicKeyBase64 } from '../ledger/signing-key.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import type { TransactItem } from '../store/conditional-write.js';
import { readHead } from '../store/ledger-store.js';
import { advanceHeadToLastRecord, commitRecord } from '../store/ledger-writes.js';
import { LOST_RACE, retryOnLostRace, type LostRace } from '../store/lost-race.js';
import { archiveRecord } from './archive.js';

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

/**
 * Writes committed atomically with the record (state change and evidence succeed or fail together); a
 * function receives the sealed record, for writes that name it.
 */
export type WithRecord = TransactItem[] | ((record: LedgerRecord) => TransactItem[]);

export interface AppendOptions {
  with?: WithRecord;
  /** Thrown when one of `with`'s conditions fails; receives the index of the failed item. */
  onConflict?: (failedItem: number) => Error;
}

const MAX_ATTEMPTS = 200;

/**
 * Appends a record to a firm's chain.
 *
 * Each attempt reads the chain head, seals the record after it and commits head, record and an outbox entry
 * in one DynamoDB transaction whose conditions guarantee that sequence numbers are unique, gapless and
 * strictly increasing. A lost race retries on the new head. After the commit the record's canonical bytes
 * go to the immutable store and the outbox entry is removed (archiveRecord); if the process dies in between,
 * the outbox sweep (functions/workers/ledger-outbox-sweep) finishes the copy.
 */
export async function appendRecord(
  deps: Deps,
  input: AppendInput,
  options: AppendOptions = {},
): Promise<LedgerRecord> {
  const result = await inFirmOrder(deps, input.firmId, () => appendOnce(deps, input, options.with));
  if (!('failedItem' in result)) return result;
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
  const result = await inFirmOrder(deps, input.firmId, () => appendOnce(deps, input, withRecord));
  return 'failedItem' in result ? LOST_RACE : result;
}

/** Per Deps instance (one per process in production), the last append queued for each firm. */
const firmTails = new WeakMap<Deps, Map<string, Promise<unknown>>>();

/**
 * Runs one process's appends to a firm one after another. Racing them only makes each lost race repeat its
 * read, signature and transaction (measured: 8.6 appends/s at 32 concurrent against ~40/s queued, see
 * docs/benchmarks.md). Correctness never depends on it: the conditional transaction still orders appends
 * from different processes (Lambda instances).
 */
function inFirmOrder<T>(deps: Deps, firmId: string, work: () => Promise<T>): Promise<T> {
  let tails = firmTails.get(deps);
  if (!tails) firmTails.set(deps, (tails = new Map()));
  const run = (tails.get(firmId) ?? Promise.resolve()).then(work);
  const tail = run.catch(() => undefined);
  tails.set(firmId, tail);
  void tail.then(() => {
    if (tails.get(firmId) === tail) tails.delete(firmId);
  });
  return run;
}

/** The sealed, committed record, or the index of the `with` item whose condition failed (nothing written). */
async function appendOnce(
  deps: Deps,
  input: AppendInput,
  withRecord: WithRecord | undefined,
): Promise<LedgerRecord | { failedItem: number }> {
  const publicKey = await publicKeyBase64(deps.signer);
  // Exactly what JSON (and so DynamoDB and the canonical form) will hold: no undefined, no class instances.
  const documentMetadata = JSON.parse(JSON.stringify(input.documentMetadata)) as Record<string, unknown>;
  return retryOnLostRace(
    async () => {
      const head = await readHead(deps, input.firmId);
      const now = isoNow(deps.clock);
      const payload: RecordPayload = {
        id: newId('record'),
        firmId: input.firmId,
        sequenceNumber: head.sequenceNumber + 1,
        eventType: input.eventType,
        actorId: input.actor.id,
        actorName: input.actor.name,
        actorFcaRef: input.actor.fcaRef,
        documentHash: input.documentHash ?? '',
        documentMetadata,
        // Timestamps never go backwards along the chain, even across hosts with slightly different clocks.
        timestamp: head.timestamp !== null && head.timestamp > now ? head.timestamp : now,
        reviewJobId: input.reviewJobId ?? null,
      };
      const record = await sealRecord(payload, head.chainHash, deps.signer, publicKey);
      const body = canonicalJson(record);
      const extra = typeof withRecord === 'function' ? withRecord(record) : withRecord;
      const result = await commitRecord(deps, head, record, body, extra);
      if (result === 'committed') {
        await archiveRecord(deps, record, body);
        return record;
      }
      if (typeof result === 'object') return result;
      if (result === 'head-behind') {
        logger.warn('Ledger head is behind its records; advancing it', { firmId: input.firmId, head });
        await advanceHeadToLastRecord(deps, input.firmId, head);
      }
      return LOST_RACE;
    },
    {
      attempts: MAX_ATTEMPTS,
      exhausted: () =>
        new Error(`Could not append to the ledger of ${input.firmId} after ${MAX_ATTEMPTS} attempts`),
    },
  );
}
