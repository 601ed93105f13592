import type { BrokenRecord, VerificationCursor } from '../domain/integrity/chain-check.js';
import type { Deps } from '../runtime/deps.js';
import { writeConditionally, writeNew, type TransactItem } from './conditional-write.js';
import { send, withoutKeys } from './dynamo.js';
import { keys, padSequence, SK_PREFIX } from './keys.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';
import { dueInSweepIndex } from './sweep-index.js';

/** Broken records kept on a run; the count is exact, the list stops here (a wrecked chain is not a 400 KB item). */
export const MAX_LISTED_BROKEN = 200;

export type VerificationMode = 'full' | 'incremental';
export type VerificationStatus = 'RUNNING' | 'COMPLETED';

export interface VerificationRun {
  id: string;
  firmId: string;
  mode: VerificationMode;
  status: VerificationStatus;
  /** API call or background continuation. */
  trigger: 'api' | 'background';
  requestedBy: string;
  fromSequence: number;
  toSequence: number;
  cursor: VerificationCursor;
  brokenRecords: BrokenRecord[];
  startedAt: string;
  updatedAt: string;
  completedAt: string | null;
  valid: boolean | null;
  /** CHAIN_VERIFIED record written when the run completed. */
  ledgerRecordId: string | null;
  /** The full run started in the background alongside an incremental one. */
  backgroundVerificationId: string | null;
  /** How often the verification sweep re-queued the run after it made no progress (absent: never). */
  requeues?: number;
}

/**
 * A running run's entry in the main table's sparse sweep index (`jobSweep`, shared/store/tables.ts), beside the
 * review jobs' `SLA` and `COMPLETION` entries: `sweepKind` VERIFY, `sweepDue` `<updatedAt>#<firmId>#<runId>`. Put
 * with the run, moved by every progress save, removed by the completion: the index holds exactly the runs still
 * RUNNING, by their last progress, and the verification sweep (shared/services/integrity/verification-sweep.ts)
 * reads only those without progress for a while. Storage detail, stripped on read.
 */
export const VERIFY_SWEEP_KIND = 'VERIFY';
const SWEEP_ATTRIBUTES = ['sweepKind', 'sweepDue'] as const;

export function verificationSweepEntry(firmId: string, runId: string, at: string) {
  return { sweepKind: VERIFY_SWEEP_KIND, sweepDue: `${at}#${firmId}#${runId}` };
}

const fromItem = (item: Record<string, unknown>) =>
  withoutKeys(item, SWEEP_ATTRIBUTES) as unknown as VerificationRun;

export interface Checkpoint {
  sequenceNumber: number;
  chainHash: string;
  verifiedAt: string;
  verificationId: string;
}

export async function putRun(deps: Deps, run: VerificationRun): Promise<void> {
  await writeNew(
    deps,
    [
      {
        Put: {
          TableName: deps.tables.main,
          Item: {
            ...keys.verification(run.firmId, run.id),
            ...run,
            ...verificationSweepEntry(run.firmId, run.id, run.updatedAt),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
    `verification run ${run.id}`,
  );
}

export async function getRun(deps: Deps, firmId: string, id: string): Promise<VerificationRun | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.verification(firmId, id),
    ConsistentRead: true,
  });
  return Item ? fromItem(Item) : null;
}

/**
 * Saves a chunk's progress, conditional on the cursor the chunk started from: a duplicate delivery of the
 * same continuation loses this race and stops instead of counting records twice. The run's sweep entry moves
 * with it (and is set on a run started before the entries existed).
 */
export async function saveProgress(
  deps: Deps,
  run: VerificationRun,
  from: VerificationCursor,
  cursor: VerificationCursor,
  brokenRecords: BrokenRecord[],
  at: string,
): Promise<boolean> {
  const outcome = await writeConditionally(deps, [
    {
      Update: {
        TableName: deps.tables.main,
        Key: keys.verification(run.firmId, run.id),
        UpdateExpression:
          'SET #cursor = :cursor, brokenRecords = :broken, updatedAt = :at, sweepKind = :kind, sweepDue = :due',
        ConditionExpression: '#status = :running AND #cursor.nextSequence = :expected',
        ExpressionAttributeNames: { '#cursor': 'cursor', '#status': 'status' },
        ExpressionAttributeValues: {
          ':cursor': cursor,
          ':broken': brokenRecords.slice(0, MAX_LISTED_BROKEN),
          ':at': at,
          ':running': 'RUNNING',
          ':expected': from.nextSequence,
          ':kind': VERIFY_SWEEP_KIND,
          ':due': verificationSweepEntry(run.firmId, run.id, at).sweepDue,
        },
      },
    },
  ]);
  return outcome.status === 'committed';
}

/**
 * The completion write, committed atomically with the CHAIN_VERIFIED record (and the checkpoint, if valid); it
 * takes the run out of the sweep index.
 */
export function completeRunItem(
  deps: Deps,
  run: VerificationRun,
  valid: boolean,
  recordId: string,
  at: string,
): TransactItem {
  return {
    Update: {
      TableName: deps.tables.main,
      Key: keys.verification(run.firmId, run.id),
      UpdateExpression:
        'SET #status = :completed, valid = :valid, completedAt = :at, updatedAt = :at, ledgerRecordId = :record ' +
        'REMOVE sweepKind, sweepDue',
      ConditionExpression: '#status = :running',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':completed': 'COMPLETED',
        ':running': 'RUNNING',
        ':valid': valid,
        ':at': at,
        ':record': recordId,
      },
    },
  };
}

/**
 * Moves the checkpoint forward only: a run that started earlier never moves it back (its write is dropped,
 * as a later run already checked further).
 */
export async function advanceCheckpoint(deps: Deps, firmId: string, checkpoint: Checkpoint): Promise<void> {
  await writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.main,
        Item: { ...keys.integrityCheckpoint(firmId), ...checkpoint },
        ConditionExpression: 'attribute_not_exists(pk) OR sequenceNumber <= :seq',
        ExpressionAttributeValues: { ':seq': checkpoint.sequenceNumber },
      },
    },
  ]);
}

export async function getCheckpoint(deps: Deps, firmId: string): Promise<Checkpoint | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.integrityCheckpoint(firmId),
    ConsistentRead: true,
  });
  return Item ? (withoutKeys(Item) as Checkpoint) : null;
}

/** The firm's most recent runs, newest first (run ids are ULIDs, so sort order is start order). */
export async function recentRuns(deps: Deps, firmId: string, limit: number): Promise<VerificationRun[]> {
  const { Items = [] } = await send(deps.db, 'Query', {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', SK_PREFIX.verification),
    },
    ScanIndexForward: false,
    Limit: limit,
  });
  return Items.map(fromItem);
}

/**
 * Runs whose sweep entry is older than `before` (no progress saved, nor a re-queue, since then), oldest first, at
 * most `limit`: one Query of the sparse index's VERIFY partition, which holds only running runs.
 */
export function staleRuns(
  deps: Deps,
  before: string,
  limit: number,
): Promise<{ firmId: string; id: string }[]> {
  return dueInSweepIndex(deps, VERIFY_SWEEP_KIND, before, limit);
}

/**
 * Records that the sweep re-queued a run: its sweep entry moves to `at` (the next re-queue comes a stale period
 * later, unless the run progresses) and `requeues` counts it. Conditional on the run being as the sweep read it
 * (RUNNING, no progress since `updatedAt`); false when it moved on meanwhile, which needs nothing more.
 */
export async function markRequeued(
  deps: Deps,
  run: Pick<VerificationRun, 'firmId' | 'id' | 'updatedAt'>,
  at: string,
): Promise<boolean> {
  const outcome = await writeConditionally(deps, [
    {
      Update: {
        TableName: deps.tables.main,
        Key: keys.verification(run.firmId, run.id),
        UpdateExpression: 'SET sweepKind = :kind, sweepDue = :due ADD requeues :one',
        ConditionExpression: '#status = :running AND updatedAt = :seen',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':kind': VERIFY_SWEEP_KIND,
          ':due': verificationSweepEntry(run.firmId, run.id, at).sweepDue,
          ':one': 1,
          ':running': 'RUNNING',
          ':seen': run.updatedAt,
        },
      },
    },
  ]);
  return outcome.status === 'committed';
}

/**
 * Takes a run that is no longer running out of the sweep index (an entry its completion did not remove: one set
 * by `ledgerctl backfill indexes` racing the completion). Conditional on the run not running; false otherwise.
 */
export async function dropSweepEntry(deps: Deps, firmId: string, id: string): Promise<boolean> {
  const outcome = await writeConditionally(deps, [
    {
      Update: {
        TableName: deps.tables.main,
        Key: keys.verification(firmId, id),
        UpdateExpression: 'REMOVE sweepKind, sweepDue',
        ConditionExpression: 'attribute_exists(pk) AND #status <> :running',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':running': 'RUNNING' },
      },
    },
  ]);
  return outcome.status === 'committed';
}

/**
 * The marker of one restore of a record: keyed by the sequence number and a digest of the damaged row it
 * repaired, created only once, so two concurrent restores of the same damage commit one CHAIN_REPAIRED.
 */
export function restoreMarkerItem(
  deps: Deps,
  firmId: string,
  sequenceNumber: number,
  damageDigest: string,
  recordId: string,
  restoredAt: string,
): TransactItem {
  return {
    Put: {
      TableName: deps.tables.main,
      Item: {
        pk: keys.firmPk(firmId),
        sk: `RESTORE#${padSequence(sequenceNumber)}#${damageDigest}`,
        recordId,
        restoredAt,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}
