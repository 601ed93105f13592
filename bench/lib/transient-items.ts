/**
 * Counts of the service's transient items in the stack's DynamoDB Local (shared/store/keys.ts), each with how many
 * have already run out. DynamoDB Local does not run TTL deletion, so an item past its time stays in the table:
 * what bounds it is our own code deleting it, or our reads ignoring it once run out (and, in AWS, the TTL).
 *
 * - append intents `APPEND#` (ledger table): deleted by their record's commit or by their asker; only a FAILED one
 *   waits for its asker, and one settled over STALE_INTENT_MS ago is left behind (the sequencer clears those);
 * - outbox entries `OUTBOX#` (ledger): deleted once the record's copy and dispatch are done;
 * - leases `SEQUENCER` and `LOGLEASE` (ledger): one item per firm, `until` in ms (0 once released);
 * - the firm's write bucket `RATELIMIT#WRITES` (main): one item per firm, `slotN` leases in µs under a cap;
 * - `Idempotency-Key` items `IDEMPOTENCY#<firm>#<hash>` (main): `ttl` in Unix seconds, 24 h after first use.
 */
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  GetCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { sha256Hex } from '../../shared/ledger/hashing.js';
import type { Deps } from '../../shared/runtime/deps.js';
import { keys, SK_PREFIX } from '../../shared/store/keys.js';
import { IDEMPOTENCY_PK_PREFIX, TTL_ATTRIBUTE } from '../../shared/store/tables.js';

/** A FAILED intent settled longer ago than this counts as left behind by its asker. */
const STALE_INTENT_MS = 60_000;

export interface TransientCounts {
  intentsPending: number;
  intentsFailed: number;
  /** FAILED intents settled over a minute ago (their asker never collected them). */
  intentsStale: number;
  outbox: number;
  leases: number;
  leasesRunOut: number;
  buckets: number;
  slots: number;
  /** Slot leases still running (a request in flight holds each). */
  slotsHeld: number;
  idempotencyKeys: number;
  /** Past their `ttl`: DynamoDB's TTL would delete them; reads treat them as absent. */
  idempotencyExpired: number;
}

export const emptyCounts = (): TransientCounts => ({
  intentsPending: 0,
  intentsFailed: 0,
  intentsStale: 0,
  outbox: 0,
  leases: 0,
  leasesRunOut: 0,
  buckets: 0,
  slots: 0,
  slotsHeld: 0,
  idempotencyKeys: 0,
  idempotencyExpired: 0,
});

type Item = Record<string, unknown>;

/** Adds one item to the counts if it is one of the transient shapes. */
function classify(counts: TransientCounts, item: Item, nowMs: number): void {
  const pk = String(item.pk);
  const sk = String(item.sk);
  if (pk.startsWith(IDEMPOTENCY_PK_PREFIX)) {
    counts.idempotencyKeys++;
    if (Number(item[TTL_ATTRIBUTE]) <= Math.floor(nowMs / 1000)) counts.idempotencyExpired++;
  } else if (sk.startsWith(SK_PREFIX.appendIntent)) {
    if (item.state === 'FAILED') {
      counts.intentsFailed++;
      if (Date.parse(String(item.settledAt)) < nowMs - STALE_INTENT_MS) counts.intentsStale++;
    } else counts.intentsPending++;
  } else if (sk.startsWith(SK_PREFIX.outbox)) counts.outbox++;
  else if (sk === 'SEQUENCER' || sk === 'LOGLEASE') {
    counts.leases++;
    if (Number(item.until) < nowMs) counts.leasesRunOut++;
  } else if (sk === keys.writeBucket('').sk) {
    counts.buckets++;
    for (const [name, value] of Object.entries(item))
      if (/^slot\d+$/.test(name)) {
        counts.slots++;
        if (Number(value) > nowMs * 1000) counts.slotsHeld++;
      }
  }
}

async function queryAll(deps: Deps, table: string, pk: string, prefix: string): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...((page.Items ?? []) as Item[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

async function getItem(
  deps: Deps,
  table: string,
  key: { pk: string; sk: string },
): Promise<Item | undefined> {
  return (await deps.db.send(new GetCommand({ TableName: table, Key: key }))).Item as Item | undefined;
}

/**
 * The transient items of the given firms, read with targeted queries and gets (cheap enough to run every minute
 * under load): their intents, outbox entries, leases and write buckets, and the `Idempotency-Key` items of the keys
 * given (their partitions cannot be queried by firm).
 */
export async function countFirmTransients(
  deps: Deps,
  firmIds: string[],
  idempotencyKeys: { firmId: string; key: string }[],
  nowMs: number,
): Promise<TransientCounts> {
  const counts = emptyCounts();
  for (const firmId of firmIds) {
    const pk = keys.firmPk(firmId);
    const items = [
      ...(await queryAll(deps, deps.tables.ledger, pk, SK_PREFIX.appendIntent)),
      ...(await queryAll(deps, deps.tables.ledger, pk, SK_PREFIX.outbox)),
      await getItem(deps, deps.tables.ledger, keys.sequencerLease(firmId)),
      await getItem(deps, deps.tables.ledger, keys.logLease(firmId)),
      await getItem(deps, deps.tables.main, keys.writeBucket(firmId)),
    ];
    for (const item of items) if (item) classify(counts, item, nowMs);
  }
  for (let i = 0; i < idempotencyKeys.length; i += 100) {
    let wanted: Record<string, unknown>[] | undefined = idempotencyKeys
      .slice(i, i + 100)
      .map(({ firmId, key }) => keys.idempotencyKey(firmId, sha256Hex(key)));
    while (wanted && wanted.length > 0) {
      const page: BatchGetCommandOutput = await deps.db.send(
        new BatchGetCommand({ RequestItems: { [deps.tables.main]: { Keys: wanted } } }),
      );
      for (const item of page.Responses?.[deps.tables.main] ?? []) classify(counts, item, nowMs);
      wanted = page.UnprocessedKeys?.[deps.tables.main]?.Keys;
    }
  }
  return counts;
}

/** Every transient item in both tables, whoever wrote it: a full scan (run it once the load has stopped). */
export async function scanTransients(
  deps: Deps,
  nowMs: number,
): Promise<TransientCounts & { scanned: number }> {
  const counts = emptyCounts();
  let scanned = 0;
  for (const table of [deps.tables.ledger, deps.tables.main]) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await deps.db.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
      for (const item of (page.Items ?? []) as Item[]) classify(counts, item, nowMs);
      scanned += page.Items?.length ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return { ...counts, scanned };
}
