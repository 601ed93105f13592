import { isAdditive } from '../store/additive-updates.js';
import { itemKey, type TransactItem } from '../store/conditional-write.js';
import type { LedgerEventType } from '../ledger/event-types.js';
import type { Actor, RecordPayload } from '../ledger/record.js';

/**
 * One append waiting for its place in the chain, as plain data: it may wait in this process or, written to the
 * ledger table as an intent, be sealed by whichever instance holds the firm's sequencer (shared/ledger-writer/sequencer.ts).
 */
export interface PendingAppend {
  /** `rec_<ULID>`: the record's id, chosen when the append is asked for; appends are sealed in this order. */
  recordId: string;
  firmId: string;
  eventType: LedgerEventType;
  actor: Actor;
  documentHash: string;
  documentMetadata: Record<string, unknown>;
  reviewJobId: string | null;
  /** The asker's clock: the record's timestamp, unless the chain is already later (timestamps never go back). */
  requestedAt: string;
  /**
   * Writes that commit atomically with the record. Any string value equal to `timestampToken` stands for the
   * record's timestamp, which is known only when the record is sealed.
   */
  extras: TransactItem[];
  timestampToken: string;
  /**
   * Indexes of `extras` that create items under ids made for this append (AppendOptions.creates): their
   * conditions only guard against a collision, so they are committed with the record but never checked before
   * signing. Absent: every condition is checked.
   */
  unchecked?: number[];
}

/** DynamoDB's limits for one TransactWriteItems call. */
export const TRANSACTION_MAX_ITEMS = 100;
export const TRANSACTION_MAX_BYTES = 4 * 1024 * 1024;

/** Items the commit writes per append besides its extras: the record row and its outbox entry. */
const LEDGER_ITEMS_PER_APPEND = 2;

/**
 * The longest prefix of `pending` (already in order) that one transaction can commit after the head item:
 * at most 100 items and 4 MB, and no item twice (two appends whose extras touch the same item go to different
 * batches, so the second sees the first's write, and a failed condition of one never takes the other down).
 * Additive updates (counter deltas: no condition, `ADD` only, additive-updates.ts) are the exception: several
 * appends may add to one item, and the commit sums them into one update. `ownItems(append)` counts the items the
 * append adds beyond its record, outbox entry and extras (its intent). The first append is always taken: alone
 * it fits, because each append was checked when it was asked for.
 */
export function planBatch<T extends PendingAppend>(
  pending: readonly T[],
  ownItems: (append: T) => number,
): { batch: T[]; rest: T[] } {
  const exclusive = new Set<string>();
  const added = new Set<string>();
  let items = 1; // the chain head
  let bytes = 0;
  let taken = 0;
  for (const append of pending) {
    const { exclusiveKeys, additiveKeys } = touchedKeys(append.extras);
    const newAdded = additiveKeys.filter((key) => !added.has(key));
    const appendItems = LEDGER_ITEMS_PER_APPEND + ownItems(append) + exclusiveKeys.length + newAdded.length;
    // The record's JSON is written up to three times (row, outbox body, intent); extras once.
    const appendBytes =
      3 * JSON.stringify(append.documentMetadata).length + JSON.stringify(append.extras).length + 2048;
    const fits =
      items + appendItems <= TRANSACTION_MAX_ITEMS &&
      bytes + appendBytes <= TRANSACTION_MAX_BYTES &&
      exclusiveKeys.every((key) => !exclusive.has(key) && !added.has(key)) &&
      additiveKeys.every((key) => !exclusive.has(key));
    if (!fits && taken > 0) break;
    exclusiveKeys.forEach((key) => exclusive.add(key));
    additiveKeys.forEach((key) => added.add(key));
    items += appendItems;
    bytes += appendBytes;
    taken += 1;
  }
  return { batch: pending.slice(0, taken), rest: pending.slice(taken) };
}

/** The keys of the items extras touch: those no other append of a batch may touch, and additive ones. */
function touchedKeys(extras: readonly TransactItem[]): { exclusiveKeys: string[]; additiveKeys: string[] } {
  const exclusiveKeys: string[] = [];
  const additiveKeys: string[] = [];
  for (const item of extras) (isAdditive(item) ? additiveKeys : exclusiveKeys).push(itemKey(item));
  return { exclusiveKeys, additiveKeys };
}

/**
 * The payloads of `batch` placed after the chain head: consecutive sequence numbers and timestamps that never
 * go back along the chain (an append asked for before the head's time takes the head's time).
 */
export function placeBatch(
  batch: readonly PendingAppend[],
  head: { sequenceNumber: number; timestamp: string | null },
): RecordPayload[] {
  let timestamp = head.timestamp;
  return batch.map((append, i) => {
    timestamp = timestamp !== null && timestamp > append.requestedAt ? timestamp : append.requestedAt;
    return {
      id: append.recordId,
      firmId: append.firmId,
      sequenceNumber: head.sequenceNumber + 1 + i,
      eventType: append.eventType,
      actorId: append.actor.id,
      actorName: append.actor.name,
      actorFcaRef: append.actor.fcaRef,
      documentHash: append.documentHash,
      documentMetadata: append.documentMetadata,
      timestamp,
      reviewJobId: append.reviewJobId,
    };
  });
}

/** The append's extras with its timestamp token replaced by the record's timestamp, wherever it occurs. */
export function extrasAt(append: PendingAppend, timestamp: string): TransactItem[] {
  const replace = (value: unknown): unknown => {
    if (value === append.timestampToken) return timestamp;
    if (Array.isArray(value)) return value.map(replace);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v)]));
    return value;
  };
  return replace(append.extras) as TransactItem[];
}

/**
 * The appends whose own conditions one transaction of condition checks can judge together: none touching an item
 * another one already touches (DynamoDB refuses two operations on one item in a transaction), at most
 * TRANSACTION_MAX_ITEMS checks in all, in the order given. The others are left for the batch's own check.
 */
export function checkableTogether<T extends PendingAppend>(appends: readonly T[]): T[] {
  const seen = new Set<string>();
  let checks = 0;
  const chosen: T[] = [];
  for (const append of appends) {
    const appendChecks = conditionChecks(append.extras, append.unchecked);
    // Additive updates make no check (they have no condition): the check transaction never holds their items.
    const appendKeys = touchedKeys(append.extras).exclusiveKeys;
    if (appendKeys.some((key) => seen.has(key))) continue;
    if (checks + appendChecks.length > TRANSACTION_MAX_ITEMS) break;
    appendKeys.forEach((key) => seen.add(key));
    checks += appendChecks.length;
    chosen.push(append);
  }
  return chosen;
}

/** Does `value` (an append's extras, or checks built from them) hold the append's timestamp token anywhere? */
export function holdsTimestampToken(append: PendingAppend, value: unknown): boolean {
  if (value === append.timestampToken) return true;
  if (Array.isArray(value)) return value.some((v) => holdsTimestampToken(append, v));
  if (value !== null && typeof value === 'object')
    return Object.values(value).some((v) => holdsTimestampToken(append, v));
  return false;
}

/**
 * A ConditionCheck for every extra write that carries a condition, except those `unchecked` (indexes of fresh
 * creations, PendingAppend), with the index of the extra it checks: committed together they tell, before
 * anything is signed, which appends would fail their own conditions. Only the names and values the condition
 * uses are kept (DynamoDB refuses unused ones).
 */
export function conditionChecks(
  extras: readonly TransactItem[],
  unchecked: readonly number[] = [],
): { extra: number; check: TransactItem }[] {
  return extras.flatMap((item, extra) => {
    const write = item.Put ?? item.Update ?? item.Delete ?? item.ConditionCheck;
    const condition = write?.ConditionExpression;
    if (!write || !condition || unchecked.includes(extra)) return [];
    const key = item.Put
      ? { pk: item.Put.Item?.pk, sk: item.Put.Item?.sk }
      : (write as { Key: Record<string, unknown> }).Key;
    const used = new Set(condition.match(/[#:][A-Za-z0-9_]+/g) ?? []);
    const pick = <V>(entries: Record<string, V> | undefined) => {
      const kept = Object.entries(entries ?? {}).filter(([token]) => used.has(token));
      return kept.length > 0 ? Object.fromEntries(kept) : undefined;
    };
    return [
      {
        extra,
        check: {
          ConditionCheck: {
            TableName: write.TableName,
            Key: key,
            ConditionExpression: condition,
            ...optional('ExpressionAttributeNames', pick(write.ExpressionAttributeNames)),
            ...optional('ExpressionAttributeValues', pick(write.ExpressionAttributeValues)),
          },
        },
      },
    ];
  });
}

function optional<K extends string, V>(name: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [name]: value } as Record<K, V>);
}
