/**
 * Firm counters in the main table (issue 14): `CNT#<family>#<shard>` items of the firm's partition, one numeric
 * attribute per counter (named by a JSON array, shared/domain/counters/contributions.ts) plus `rev`, which every
 * change increments. Writers add a delta to one shard inside the transaction of their own write; readers sum the
 * family's shards (one Query); a recount replaces every shard at once, conditional on the revs it read.
 */
import {
  certificateContributions,
  counterDelta,
  incidentContributions,
  isCounterName,
  jobContributions,
  SHARDS,
  shardOf,
  sumCounters,
  type CounterFamily,
  type Counters,
  type IncidentCounterView,
  type JobCounterView,
} from '../domain/counters/contributions.js';
import type { Deps } from '../runtime/deps.js';
import { writeConditionally, type TransactItem, type WriteOutcome } from './conditional-write.js';
import { queryAll } from './dynamo.js';
import { keys } from './keys.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

const COUNTER_PREFIX = 'CNT#';
const shardSk = (family: CounterFamily, shard: number) =>
  `${COUNTER_PREFIX}${family}#${String(shard).padStart(2, '0')}`;
const familyPrefix = (family: CounterFamily) => `${COUNTER_PREFIX}${family}#`;

/**
 * The update adding `delta` to the shard of `entityId`, for the transaction that changes the entity (null when
 * the delta is empty: nothing to add). No condition: it never fails a transaction by itself.
 */
export function counterDeltaItem(
  deps: Deps,
  firmId: string,
  family: CounterFamily,
  entityId: string,
  delta: Counters,
): TransactItem | null {
  if (delta.size === 0) return null;
  const names: Record<string, string> = { '#rev': 'rev' };
  const values: Record<string, unknown> = { ':one': 1 };
  const terms = ['#rev :one'];
  let i = 0;
  for (const [name, value] of delta) {
    names[`#c${i}`] = name;
    values[`:c${i}`] = value;
    terms.push(`#c${i} :c${i}`);
    i++;
  }
  return {
    Update: {
      TableName: deps.tables.main,
      Key: { pk: keys.firmPk(firmId), sk: shardSk(family, shardOf(family, entityId)) },
      UpdateExpression: `ADD ${terms.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

export interface FamilyRead {
  /** The sum over the family's shards. */
  counters: Counters;
  /** Each existing shard's rev (absent shards are not listed). */
  revs: Map<number, number>;
  /** The latest `recountedAt` among the shards (null when never recounted). */
  recountedAt: string | null;
}

/** The family's counters, summed over its shards: one strongly consistent Query of at most SHARDS items. */
export async function readCounterFamily(
  deps: Deps,
  firmId: string,
  family: CounterFamily,
): Promise<FamilyRead> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', familyPrefix(family)),
    },
    ConsistentRead: true,
  });
  const revs = new Map<number, number>();
  let recountedAt: string | null = null;
  const shards = items.map((item) => {
    revs.set(Number(String(item.sk).slice(familyPrefix(family).length)), Number(item.rev ?? 0));
    if (typeof item.recountedAt === 'string' && (recountedAt === null || item.recountedAt > recountedAt))
      recountedAt = item.recountedAt;
    return new Map(
      Object.entries(item).flatMap(([name, value]) =>
        isCounterName(name) && typeof value === 'number' ? [[name, value] as const] : [],
      ),
    );
  });
  return { counters: sumCounters(shards), revs, recountedAt };
}

/**
 * Replaces every shard of the family with `byShard` (absolute values), in one transaction conditional on each
 * shard's rev being the one read: a write that committed since (it incremented a rev) makes this
 * `condition-failed`, and the caller recounts again. Nothing is lost, nothing counted twice.
 */
export function replaceCounterFamily(
  deps: Deps,
  firmId: string,
  family: CounterFamily,
  byShard: ReadonlyMap<number, Counters>,
  revs: ReadonlyMap<number, number>,
  recountedAt: string,
): Promise<WriteOutcome> {
  const items: TransactItem[] = [];
  for (let shard = 0; shard < SHARDS[family]; shard++) {
    const rev = revs.get(shard);
    items.push({
      Put: {
        TableName: deps.tables.main,
        Item: {
          pk: keys.firmPk(firmId),
          sk: shardSk(family, shard),
          ...Object.fromEntries(byShard.get(shard) ?? []),
          rev: (rev ?? 0) + 1,
          recountedAt,
        },
        ConditionExpression: rev === undefined ? 'attribute_not_exists(pk)' : 'rev = :rev',
        ...(rev === undefined ? {} : { ExpressionAttributeValues: { ':rev': rev } }),
      },
    });
  }
  return writeConditionally(deps, items);
}

/** The `jobs` counter update of a job moving from `before` to `after` (null: not existing), as a list of 0 or 1. */
export function jobCounterItems(
  deps: Deps,
  firmId: string,
  jobId: string,
  before: JobCounterView | null,
  after: JobCounterView | null,
): TransactItem[] {
  const delta = counterDelta(before && jobContributions(before), after && jobContributions(after));
  const item = counterDeltaItem(deps, firmId, 'jobs', jobId, delta);
  return item ? [item] : [];
}

/** The `incidents` counter update of an incident moving from `before` to `after`, as a list of 0 or 1. */
export function incidentCounterItems(
  deps: Deps,
  firmId: string,
  incidentId: string,
  before: IncidentCounterView | null,
  after: IncidentCounterView,
): TransactItem[] {
  const delta = counterDelta(before && incidentContributions(before), incidentContributions(after));
  const item = counterDeltaItem(deps, firmId, 'incidents', incidentId, delta);
  return item ? [item] : [];
}

/** The `certificates` counter update of a newly saved certificate (keyed by its ledger record id). */
export function certificateCounterItem(deps: Deps, firmId: string, recordId: string): TransactItem {
  return counterDeltaItem(deps, firmId, 'certificates', recordId, certificateContributions())!;
}
