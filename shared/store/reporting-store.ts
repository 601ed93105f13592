import {
  addCounters,
  addFact,
  contributions,
  isCounterKey,
  splitByFamily,
  type Family,
  type Counters,
  type DayCounters,
  type ReportingFact,
} from '../domain/governance/aggregates.js';
import { splitDays, splitPeriod, type Period } from '../domain/governance/periods.js';
import type { LedgerRecord } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { queryAll, send } from './dynamo.js';
import { keys, padSequence, SK_PREFIX } from './keys.js';
import { conditionFailedAt, writeConditionally, type TransactItem } from './conditional-write.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

/**
 * Reporting aggregates in the main table, per firm:
 * - `AGG#<family>#D#<YYYY-MM-DD>` and `AGG#<family>#M#<YYYY-MM>`: day and month buckets of one counter family
 *   (see domain/governance/aggregates: all, seg, model, cd, vuln), one numeric attribute per counter. Families
 *   keep each report's reads small (drift reads only model counters); months keep long windows to ~a dozen
 *   items plus the days around them.
 * - `AGGJOB#<completedAt>#<jobId>`: the job's reporting fact. It is the idempotency marker (written with the
 *   bucket updates in one transaction, conditional on not existing) and, sorted by completion time, what
 *   reports read for the partial days at the edges of a period.
 */
const AGG_JOB = 'AGGJOB#';
type Granularity = 'D' | 'M';
const bucketSk = (family: Family, granularity: Granularity, bucket: string) =>
  `AGG#${family}#${granularity}#${bucket}`;
const bucketKey = (firmId: string, family: Family, granularity: Granularity, bucket: string) => ({
  pk: keys.firmPk(firmId),
  sk: bucketSk(family, granularity, bucket),
});
const factKey = (firmId: string, fact: ReportingFact) => ({
  pk: keys.firmPk(firmId),
  sk: `${AGG_JOB}${fact.completedAt}#${fact.jobId}`,
});

/** Largest number of ADD terms in one update expression (expressions are limited to 4 KB). */
const MAX_TERMS = 120;

function addUpdate(counters: Counters, bucket: string) {
  const names: Record<string, string> = { '#bucket': 'bucket' };
  const values: Record<string, unknown> = { ':bucket': bucket };
  const terms: string[] = [];
  let i = 0;
  for (const [counter, value] of counters) {
    names[`#c${i}`] = counter;
    values[`:v${i}`] = value;
    terms.push(`#c${i} :v${i}`);
    i++;
  }
  return {
    UpdateExpression: `SET #bucket = :bucket ADD ${terms.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** The bucket updates a set of counters of one day makes: per family, its day and its month. */
function bucketUpdates(counters: Counters, day: string) {
  const updates: { family: Family; granularity: Granularity; bucket: string; counters: Counters }[] = [];
  for (const [family, familyCounters] of splitByFamily(counters)) {
    updates.push({ family, granularity: 'D', bucket: day, counters: familyCounters });
    updates.push({ family, granularity: 'M', bucket: day.slice(0, 7), counters: familyCounters });
  }
  return updates;
}

/**
 * Adds one completed job to its day and month buckets, exactly once: the fact's Put is conditional on the fact
 * not existing, in the same transaction as the buckets' ADDs. Returns false when the job was already counted.
 */
export async function commitAggregation(deps: Deps, firmId: string, fact: ReportingFact): Promise<boolean> {
  const day = fact.completedAt.slice(0, 10);
  const items: TransactItem[] = [
    {
      Put: {
        TableName: deps.tables.main,
        Item: { ...factKey(firmId, fact), fact },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...bucketUpdates(contributions(fact), day).map((u): TransactItem => ({
      Update: {
        TableName: deps.tables.main,
        Key: bucketKey(firmId, u.family, u.granularity, u.bucket),
        ...addUpdate(u.counters, u.bucket),
      },
    })),
  ];
  const outcome = await writeConditionally(deps, items);
  if (outcome.status === 'committed') return true;
  if (conditionFailedAt(outcome, 0)) return false;
  // A concurrent aggregation touching the same buckets: the worker's message is retried.
  throw new Error(`Aggregating job ${fact.jobId} failed: ${JSON.stringify(outcome)}`);
}

/**
 * Bulk load for seeding (tests, benches): writes the facts in batches and adds their contributions to the
 * buckets with one update per bucket (per MAX_TERMS counters). Not idempotent: only for jobs never
 * aggregated before.
 */
export async function seedAggregates(
  deps: Deps,
  firmId: string,
  facts: readonly ReportingFact[],
): Promise<void> {
  const puts = facts.map((fact) => ({ PutRequest: { Item: { ...factKey(firmId, fact), fact } } }));
  await batchWrite(deps, deps.tables.main, puts);
  const days: DayCounters = new Map();
  for (const fact of facts) addFact(days, fact);
  const buckets = new Map<
    string,
    { key: ReturnType<typeof bucketKey>; bucket: string; counters: Counters }
  >();
  for (const [day, counters] of days) {
    for (const u of bucketUpdates(counters, day)) {
      const key = bucketKey(firmId, u.family, u.granularity, u.bucket);
      const entry = buckets.get(key.sk) ?? { key, bucket: u.bucket, counters: new Map() };
      addCounters(entry.counters, u.counters);
      buckets.set(key.sk, entry);
    }
  }
  const updates: { key: ReturnType<typeof bucketKey>; bucket: string; chunk: Counters }[] = [];
  for (const { key, bucket, counters } of buckets.values()) {
    const entries = [...counters];
    for (let start = 0; start < entries.length; start += MAX_TERMS)
      updates.push({ key, bucket, chunk: new Map(entries.slice(start, start + MAX_TERMS)) });
  }
  let next = 0;
  const lane = async () => {
    while (next < updates.length) {
      const { key, bucket, chunk } = updates[next++]!;
      await send(deps.db, 'Update', { TableName: deps.tables.main, Key: key, ...addUpdate(chunk, bucket) });
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
}

/** BatchWriteItem in chunks of 25, retrying unprocessed items, a few batches at a time. */
export async function batchWrite(
  deps: Deps,
  table: string,
  requests: readonly Record<string, unknown>[],
  width = 8,
): Promise<void> {
  const chunks: Record<string, unknown>[][] = [];
  for (let i = 0; i < requests.length; i += 25) chunks.push(requests.slice(i, i + 25));
  let next = 0;
  const lane = async () => {
    while (next < chunks.length) {
      let pending = chunks[next++]!;
      while (pending.length > 0) {
        const result = await send(deps.db, 'BatchWrite', { RequestItems: { [table]: pending as never } });
        pending = (result.UnprocessedItems?.[table] ?? []) as Record<string, unknown>[];
      }
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
}

/**
 * Counters of a period's buckets, keyed by bucket (YYYY-MM-DD for a day, YYYY-MM for a whole month), for the
 * given families. Whole months come from month buckets (unless `months` is false: weekly views need days),
 * the other whole days from day buckets, and partial edge days from the facts of the jobs completed inside
 * the period, so the edges are exact to the millisecond.
 */
export async function readPeriodCounters(
  deps: Deps,
  firmId: string,
  period: Period,
  families: readonly Family[],
  options: { months?: boolean } = {},
): Promise<DayCounters> {
  const split = splitPeriod(period);
  const buckets: DayCounters = new Map();
  const ranges: { granularity: Granularity; first: string; last: string }[] = [];
  if (split.wholeDays) {
    const { first, last } = split.wholeDays;
    if (options.months === false) ranges.push({ granularity: 'D', first, last });
    else {
      const days = splitDays(first, last);
      if (days.months) ranges.push({ granularity: 'M', ...days.months });
      for (const range of days.days) ranges.push({ granularity: 'D', ...range });
    }
  }
  const reads: Promise<void>[] = [];
  for (const family of families) {
    for (const range of ranges) {
      reads.push(
        queryAll(deps.db, {
          TableName: deps.tables.main,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': keys.firmPk(firmId),
            ':from': bucketSk(family, range.granularity, range.first),
            ':to': bucketSk(family, range.granularity, range.last),
          },
        }).then((items) => {
          for (const item of items) {
            const bucket = item.bucket as string;
            let counters = buckets.get(bucket);
            if (!counters) buckets.set(bucket, (counters = new Map()));
            for (const [name, value] of Object.entries(item))
              if (isCounterKey(name) && typeof value === 'number')
                counters.set(name, (counters.get(name) ?? 0) + value);
          }
        }),
      );
    }
  }
  for (const edge of split.partial) {
    reads.push(
      readFacts(deps, firmId, edge).then((facts) => {
        for (const fact of facts) addFact(buckets, fact);
      }),
    );
  }
  await Promise.all(reads);
  return buckets;
}

/** The facts of the jobs completed in [from, to]. */
export async function readFacts(deps: Deps, firmId: string, period: Period): Promise<ReportingFact[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ':from': `${AGG_JOB}${new Date(period.from).toISOString()}`,
      ':to': `${AGG_JOB}${new Date(period.to).toISOString()}#~`,
    },
  });
  return items.map((item) => item.fact as ReportingFact);
}

export type AnchorRecord = Pick<
  LedgerRecord,
  'id' | 'sequenceNumber' | 'timestamp' | 'eventType' | 'chainHash'
>;

/**
 * The existing record nearest to a sequence number: the first at or after it (`after`) or the last at or
 * before it (`before`). Rows may be missing (deleted, not yet restored), so this is a one-item range query.
 */
async function nearestRecord(
  deps: Deps,
  firmId: string,
  sequenceNumber: number,
  direction: 'after' | 'before',
): Promise<AnchorRecord | null> {
  const at = `${SK_PREFIX.record}${padSequence(sequenceNumber)}`;
  const [from, to] =
    direction === 'after' ? [at, `${SK_PREFIX.record}~`] : [`${SK_PREFIX.record}${padSequence(1)}`, at];
  const { Items = [] } = await send(deps.db, 'Query', {
    TableName: deps.tables.ledger,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ':from': from, ':to': to },
    ProjectionExpression: 'id, sequenceNumber, #ts, eventType, chainHash',
    ExpressionAttributeNames: { '#ts': 'timestamp' },
    ScanIndexForward: direction === 'after',
    Limit: 1,
  });
  return (Items[0] as AnchorRecord | undefined) ?? null;
}

/**
 * The first record whose timestamp satisfies `reached` (a predicate that, along the chain, is false and
 * then true: timestamps never go backwards), by binary search over sequence numbers: O(log n) queries.
 */
async function firstRecordWhere(
  deps: Deps,
  firmId: string,
  lastSequence: number,
  reached: (timestamp: number) => boolean,
): Promise<AnchorRecord | null> {
  let lo = 1;
  let hi = lastSequence + 1;
  let found: AnchorRecord | null = null;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const probe = await nearestRecord(deps, firmId, mid, 'after');
    if (!probe) {
      hi = mid;
    } else if (reached(Date.parse(probe.timestamp))) {
      found = probe;
      hi = mid;
    } else {
      lo = probe.sequenceNumber + 1;
    }
  }
  if (found && found.sequenceNumber >= lo) return found;
  const at = lo <= lastSequence ? await nearestRecord(deps, firmId, lo, 'after') : null;
  return at && reached(Date.parse(at.timestamp)) ? at : null;
}

/** The first and last ledger records whose timestamps lie in the period (null when none does). */
export async function ledgerRecordsBounding(
  deps: Deps,
  firmId: string,
  lastSequence: number,
  period: Period,
): Promise<{ first: AnchorRecord; last: AnchorRecord } | null> {
  if (lastSequence === 0) return null;
  const [first, after] = await Promise.all([
    firstRecordWhere(deps, firmId, lastSequence, (t) => t >= period.from),
    firstRecordWhere(deps, firmId, lastSequence, (t) => t > period.to),
  ]);
  if (!first || Date.parse(first.timestamp) > period.to) return null;
  const last = await nearestRecord(deps, firmId, after ? after.sequenceNumber - 1 : lastSequence, 'before');
  return last && last.sequenceNumber >= first.sequenceNumber ? { first, last } : null;
}

/** Attributes of a firm's jobs, every job (one paged query): O(jobs). */
export async function projectJobs(
  deps: Deps,
  firmId: string,
  attributes: readonly string[],
  filter?: { expression: string; names: Record<string, string>; values: Record<string, unknown> },
): Promise<Record<string, unknown>[]> {
  const names: Record<string, string> = { ...filter?.names };
  const projection = attributes.map((path) =>
    path
      .split('.')
      .map((part) => {
        const token = `#p_${part}`;
        names[token] = part;
        return token;
      })
      .join('.'),
  );
  return queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', SK_PREFIX.job),
      ...filter?.values,
    },
    ExpressionAttributeNames: names,
    ProjectionExpression: projection.join(', '),
    ...(filter ? { FilterExpression: filter.expression } : {}),
  });
}

/**
 * seedAggregates as whole items, for `ledgerctl seed` (shared/services/seed): the facts, and the firm's buckets
 * the facts touch with the facts' contributions added to what those buckets already hold (one Query of the
 * firm's buckets: O(buckets), not jobs). The caller puts them with BatchWriteItem: a few dozen calls instead of
 * one Update per bucket. A concurrent aggregation between the read and the put would be lost, so this is for
 * quiet firms only (seed's rule), and, like seedAggregates, only for jobs never aggregated before.
 */
export async function seedAggregateItems(
  deps: Deps,
  firmId: string,
  facts: readonly ReportingFact[],
): Promise<Record<string, unknown>[]> {
  const days: DayCounters = new Map();
  for (const fact of facts) addFact(days, fact);
  const buckets = new Map<string, Record<string, unknown> & { counters: Counters }>();
  for (const [day, counters] of days) {
    for (const u of bucketUpdates(counters, day)) {
      const key = bucketKey(firmId, u.family, u.granularity, u.bucket);
      const entry = buckets.get(key.sk) ?? { ...key, bucket: u.bucket, counters: new Map() };
      addCounters(entry.counters, u.counters);
      buckets.set(key.sk, entry);
    }
  }
  const existing = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':agg')}`,
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ...skPrefixValues(':agg', 'AGG#') },
    ConsistentRead: true,
  });
  for (const item of existing) {
    const entry = buckets.get(item.sk as string);
    if (!entry) continue;
    for (const [name, value] of Object.entries(item))
      if (isCounterKey(name) && typeof value === 'number')
        entry.counters.set(name, (entry.counters.get(name) ?? 0) + value);
  }
  return [
    ...facts.map((fact) => ({ ...factKey(firmId, fact), fact })),
    ...[...buckets.values()].map(({ counters, ...item }) => ({ ...item, ...Object.fromEntries(counters) })),
  ];
}
