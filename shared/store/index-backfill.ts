import type { LedgerRecord } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { writeConditionally } from './conditional-write.js';
import { send } from './dynamo.js';
import { verificationSweepEntry } from './integrity-store.js';
import { keys, SK_PREFIX } from './keys.js';
import {
  assessmentListAttributes,
  certificateListAttributes,
  jobListAttributes,
  reportLogListAttributes,
} from './list-attributes.js';
import { recordIndexAttributes } from './record-index.js';

/*
 * `ledgerctl backfill indexes` (issue 14, part 5): sets the list-index attributes (record indexes, firm lists)
 * on items written before those indexes existed, and the sweep-index entry of verification runs still running
 * (issue 32). Idempotent (an item already carrying the right attributes is not written; the attributes are the
 * very ones the writers set: recordIndexAttributes, the list attribute functions, verificationSweepEntry),
 * resumable (a run stops after `maxItems` and returns the position to pass back), and safe beside live traffic:
 * each item is updated only if it still exists, with the attributes only (never the record's fields, so no hash
 * or signature changes). A job's status attribute is computed from the status it has when read; a status change
 * racing the backfill sets its own (a run's entry likewise: the write is conditional on the status read).
 */

type Table = 'ledger' | 'main';

/** Where a backfill run stands: the table being walked and the key after which to continue. */
export interface BackfillPosition {
  table: Table;
  key: Record<string, unknown> | null;
}

export interface BackfillResult {
  scanned: number;
  updated: number;
  /** Where to continue (pass it back as `from`); null when both tables are done. */
  next: BackfillPosition | null;
}

/** The index attributes an item should carry, by its kind (sort key prefix); null for kinds without any. */
export function indexAttributesOf(
  table: Table,
  item: Record<string, unknown>,
): Record<string, string> | null {
  const sk = typeof item.sk === 'string' ? item.sk : '';
  const pk = typeof item.pk === 'string' ? item.pk : '';
  if (!pk.startsWith('FIRM#')) return null;
  const attributes = (value: object) =>
    Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string')) as Record<
      string,
      string
    >;
  if (table === 'ledger')
    return sk.startsWith(SK_PREFIX.record)
      ? attributes(recordIndexAttributes(item as unknown as LedgerRecord))
      : null;
  const fields = item as never;
  if (sk.startsWith(SK_PREFIX.job)) return attributes(jobListAttributes(fields));
  if (sk.startsWith(SK_PREFIX.certificate)) return attributes(certificateListAttributes(fields));
  if (sk.startsWith(SK_PREFIX.impactAssessment)) return attributes(assessmentListAttributes(fields));
  if (sk.startsWith(SK_PREFIX.reportLog)) return attributes(reportLogListAttributes(fields));
  if (sk.startsWith(SK_PREFIX.verification)) return verificationSweepAttributes(item);
  return null;
}

/**
 * A running verification run's sweep entry (integrity-store.ts): a run started before the entries existed gets
 * one by its last progress, so the verification sweep finds it (one left RUNNING by a refused send, issue 32); an
 * entry already there is kept as it is (a re-queue moves it past `updatedAt`). A finished run has none.
 */
function verificationSweepAttributes(item: Record<string, unknown>): Record<string, string> | null {
  if (item.status !== 'RUNNING') return null;
  if (typeof item.sweepKind === 'string' && typeof item.sweepDue === 'string')
    return { sweepKind: item.sweepKind, sweepDue: item.sweepDue };
  return verificationSweepEntry(String(item.firmId), String(item.id), String(item.updatedAt));
}

const TABLE_ORDER: readonly Table[] = ['ledger', 'main'];

/**
 * Walks the tables (all firms by Scan, or one firm's partitions by Query) from `from`, setting missing or
 * stale index attributes, until both tables are done or `maxItems` items were read.
 */
export async function backfillIndexes(
  deps: Deps,
  options: { firmId?: string; from?: BackfillPosition | null; maxItems?: number; pageSize?: number },
): Promise<BackfillResult> {
  const maxItems = options.maxItems ?? Number.POSITIVE_INFINITY;
  let position: BackfillPosition | null = options.from ?? { table: 'ledger', key: null };
  let scanned = 0;
  let updated = 0;
  while (position && scanned < maxItems) {
    const table: Table = position.table;
    const limit = Math.min(options.pageSize ?? 100, maxItems - scanned);
    const page = await readPage(deps, table, options.firmId, position.key, limit);
    for (const item of page.items) {
      scanned++;
      const wanted = indexAttributesOf(table, item);
      if (!wanted) continue;
      if (await backfillItem(deps, table, item)) updated++;
    }
    if (page.next) position = { table, key: page.next };
    else {
      const following = TABLE_ORDER[TABLE_ORDER.indexOf(table) + 1];
      position = following ? { table: following, key: null } : null;
    }
  }
  return { scanned, updated, next: position };
}

async function readPage(
  deps: Deps,
  table: Table,
  firmId: string | undefined,
  startKey: Record<string, unknown> | null,
  limit: number,
): Promise<{ items: Record<string, unknown>[]; next: Record<string, unknown> | null }> {
  const common = { TableName: deps.tables[table], Limit: limit, ExclusiveStartKey: startKey ?? undefined };
  const page = firmId
    ? await send(deps.db, 'Query', {
        ...common,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.firmPk(firmId) },
      })
    : await send(deps.db, 'Scan', common);
  return { items: page.Items ?? [], next: page.LastEvaluatedKey ?? null };
}

/**
 * Sets the item's missing or stale index attributes; false when it had them all. The write is conditional on
 * the item still existing and, for a job, still having the status its attributes were computed from (a
 * concurrent status change: the job is read again and recomputed).
 */
async function backfillItem(deps: Deps, table: Table, first: Record<string, unknown>): Promise<boolean> {
  let item: Record<string, unknown> | undefined = first;
  for (let attempt = 1; item; attempt++) {
    const wanted = indexAttributesOf(table, item) ?? {};
    const stale = Object.entries(wanted).filter(([name, value]) => item![name] !== value);
    if (stale.length === 0) return false;
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets = stale.map(([name, value], i) => {
      names[`#a${i}`] = name;
      values[`:a${i}`] = value;
      return `#a${i} = :a${i}`;
    });
    const guarded = table === 'main' && typeof item.status === 'string';
    if (guarded) {
      names['#status'] = 'status';
      values[':status'] = item.status;
    }
    const key: Record<string, unknown> = { pk: item.pk, sk: item.sk };
    const outcome = await writeConditionally(deps, [
      {
        Update: {
          TableName: deps.tables[table],
          Key: key,
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: guarded
            ? 'attribute_exists(pk) AND #status = :status'
            : 'attribute_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
    ]);
    if (outcome.status === 'committed') return true;
    if (attempt === 5) throw new Error(`Backfill of ${String(key.pk)} ${String(key.sk)} kept racing writes`);
    // Changed or deleted meanwhile (an outbox entry, say): read it again; a deleted item needs nothing.
    ({ Item: item } = await send(deps.db, 'Get', {
      TableName: deps.tables[table],
      Key: key,
      ConsistentRead: true,
    }));
  }
  return false;
}

/** A position as the text `ledgerctl` prints and accepts (base64url JSON). */
export const encodePosition = (position: BackfillPosition): string =>
  Buffer.from(JSON.stringify(position)).toString('base64url');

export function decodePosition(text: string): BackfillPosition {
  const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as BackfillPosition;
  if (!TABLE_ORDER.includes(parsed.table) || (parsed.key !== null && typeof parsed.key !== 'object'))
    throw new Error('not a backfill position');
  return parsed;
}
