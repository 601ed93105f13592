import { createHash } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { actorOf, type Principal } from '../domain/auth/principal.js';
import {
  checkChunk,
  startCursor,
  type BrokenRecord,
  type StoredRow,
  type VerificationCursor,
} from '../domain/integrity/chain-check.js';
import { diffRecords } from '../domain/integrity/record-diff.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { newId } from '../ids.js';
import { appendRecord } from '../ledger-writer/append.js';
import { canonicalJson } from '../ledger/hashing.js';
import { recordOf, type Actor, type LedgerRecord } from '../ledger/record.js';
import { publicKeyBase64 } from '../ledger/signing-key.js';
import { checkRecord } from '../ledger/verify.js';
import { isoNow } from '../ports/clock.js';
import { logger, VERIFICATION_FAILED_LOG } from '../runtime/logger.js';
import type { Deps } from '../runtime/deps.js';
import {
  checkpointItem,
  completeRunItem,
  getCheckpoint,
  getRun,
  putRun,
  recentRuns,
  saveProgress,
  type VerificationRun,
} from '../store/integrity-store.js';
import {
  immutableFirmPrefix,
  immutableSequencePrefix,
  parseImmutableRecordKey,
} from '../store/immutable-layout.js';
import { keys, padSequence } from '../store/keys.js';
import {
  countRecordRows,
  getRecordBySequence,
  queryRowRange,
  readHead,
  rowsWithRecordId,
} from '../store/ledger-store.js';
import { restoreRowItem } from '../store/ledger-writes.js';

/** Records read and checked per step; progress is saved after each. */
export const VERIFY_CHUNK = 1000;

export interface VerifyLimits {
  /** The most records the API call checks itself; the rest continues on the integrity queue. */
  inlineMaxRecords: number;
  /** Time the caller may spend before handing the rest to the queue (API Gateway allows 30 s). */
  budgetMs: number;
}

export interface ContinueMessage {
  firmId: string;
  verificationId: string;
}

// ---------------------------------------------------------------------------------------------------------
// Verification runs
// ---------------------------------------------------------------------------------------------------------

/**
 * Starts a verification. A chain that fits the inline limit (or has never been verified) is verified in full,
 * from sequence 1. A longer chain with a checkpoint is verified incrementally, from the checkpoint to the
 * head, inline, while a full re-verification starts in the background. Whatever the call cannot finish
 * within its limits continues on the integrity queue, resumably, from the saved cursor.
 */
export async function startVerification(deps: Deps, principal: Principal, limits: VerifyLimits) {
  const now = isoNow(deps.clock);
  const head = await readHead(deps, principal.firmId);
  const checkpoint = await getCheckpoint(deps, principal.firmId);
  const incremental =
    checkpoint !== null &&
    head.sequenceNumber > limits.inlineMaxRecords &&
    checkpoint.sequenceNumber <= head.sequenceNumber;
  const newRun = (mode: VerificationRun['mode'], trigger: VerificationRun['trigger']): VerificationRun => {
    const fromSequence = mode === 'incremental' ? checkpoint!.sequenceNumber + 1 : 1;
    return {
      id: newId('verification'),
      firmId: principal.firmId,
      mode,
      status: 'RUNNING',
      trigger,
      requestedBy: JSON.stringify(actorOf(principal)),
      fromSequence,
      toSequence: head.sequenceNumber,
      cursor: startCursor(fromSequence, mode === 'incremental' ? checkpoint!.chainHash : null),
      brokenRecords: [],
      startedAt: now,
      updatedAt: now,
      completedAt: null,
      valid: null,
      ledgerRecordId: null,
      backgroundVerificationId: null,
    };
  };

  const run = newRun(incremental ? 'incremental' : 'full', 'api');
  if (incremental) {
    const background = newRun('full', 'background');
    run.backgroundVerificationId = background.id;
    await putRun(deps, background);
    await deps.queue.send('integrity-verify', { firmId: background.firmId, verificationId: background.id });
  }
  await putRun(deps, run);
  const deadline = Date.now() + limits.budgetMs;
  const finished = await advanceRun(deps, run, deadline, limits.inlineMaxRecords);
  if (!finished)
    await deps.queue.send('integrity-verify', {
      firmId: run.firmId,
      verificationId: run.id,
    } satisfies ContinueMessage);
  const stored = (await getRun(deps, run.firmId, run.id))!;
  return { verification: presentRun(stored), result: resultOf(stored) };
}

/** The integrity worker: continues a run from its saved cursor until done or out of time, then re-queues itself. */
export async function continueVerification(
  deps: Deps,
  message: ContinueMessage,
  budgetMs: number,
): Promise<void> {
  const run = await getRun(deps, message.firmId, message.verificationId);
  if (!run || run.status === 'COMPLETED') return;
  const finished = await advanceRun(deps, run, Date.now() + budgetMs, Number.POSITIVE_INFINITY);
  if (finished === false) await deps.queue.send('integrity-verify', message);
}

/**
 * Checks chunks from the run's cursor until the run is done (then completes it), the deadline passes or the
 * record allowance is spent. Returns true when completed, false when work remains, null when another worker
 * owns the run (its progress save lost the race).
 */
async function advanceRun(
  deps: Deps,
  run: VerificationRun,
  deadline: number,
  maxRecords: number,
): Promise<boolean | null> {
  const trusted = new Set([await publicKeyBase64(deps.signer)]);
  // The last sequence of a chunk starting at `from`, within the chunk size and the remaining allowance.
  const chunkEnd = (from: number, allowance: number) =>
    Math.min(from + Math.min(VERIFY_CHUNK, allowance) - 1, run.toSequence);
  const read = (from: number, through: number) => queryRowRange(deps, run.firmId, from, through);
  let checked = 0;
  let from = run.cursor.nextSequence;
  let through = chunkEnd(from, maxRecords);
  let pending: Promise<StoredRow[]> | null = from <= run.toSequence ? read(from, through) : null;
  while (pending) {
    const rows = await pending;
    const allowance = maxRecords - (checked + through - from + 1);
    const more = through < run.toSequence && Date.now() < deadline && allowance > 0;
    const next = { from: through + 1, through: more ? chunkEnd(through + 1, allowance) : 0 };
    // Read the next chunk while this one is checked.
    pending = more ? read(next.from, next.through) : null;
    const { broken, cursor } = await checkInSlices(run.firmId, rows, through, run.cursor, trusted);
    const brokenRecords = [...run.brokenRecords, ...broken];
    if (!(await saveProgress(deps, run, run.cursor, cursor, brokenRecords, isoNow(deps.clock)))) {
      await pending?.catch(() => undefined);
      return null;
    }
    run.cursor = cursor;
    run.brokenRecords = brokenRecords;
    checked += through - from + 1;
    ({ from, through } = next);
  }
  if (run.cursor.nextSequence <= run.toSequence) return false;
  await completeRun(deps, run);
  return true;
}

/** Records checked between yields to the event loop, so the read-ahead request makes progress meanwhile. */
const CHECK_SLICE = 100;

async function checkInSlices(
  firmId: string,
  rows: StoredRow[],
  through: number,
  start: VerificationCursor,
  trusted: ReadonlySet<string>,
): Promise<{ broken: BrokenRecord[]; cursor: VerificationCursor }> {
  const broken: BrokenRecord[] = [];
  let cursor = start;
  while (cursor.nextSequence <= through) {
    const end = Math.min(cursor.nextSequence + CHECK_SLICE - 1, through);
    const slice = rows.filter((r) => r.position >= cursor.nextSequence && r.position <= end);
    const checked = checkChunk(firmId, slice, end, cursor, trusted);
    broken.push(...checked.broken);
    cursor = checked.cursor;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { broken, cursor };
}

/** Writes CHAIN_VERIFIED and marks the run completed, atomically; a valid run moves the checkpoint forward. */
async function completeRun(deps: Deps, run: VerificationRun): Promise<void> {
  const valid = run.cursor.brokenCount === 0;
  const at = isoNow(deps.clock);
  try {
    const record = await appendRecord(
      deps,
      {
        firmId: run.firmId,
        eventType: 'CHAIN_VERIFIED',
        actor: JSON.parse(run.requestedBy) as Actor,
        documentMetadata: {
          verificationId: run.id,
          mode: run.mode,
          fromSequence: run.fromSequence,
          toSequence: run.toSequence,
          recordsChecked: run.cursor.recordsChecked,
          valid,
          brokenCount: run.cursor.brokenCount,
          brokenSequenceNumbers: run.brokenRecords.slice(0, 50).map((b) => b.sequenceNumber),
        },
      },
      {
        with: (sealed) => [completeRunItem(deps, run, valid, sealed.id, at)],
        onConflict: () => new RunAlreadyCompleted(),
      },
    );
    run.status = 'COMPLETED';
    run.valid = valid;
    run.completedAt = at;
    run.ledgerRecordId = record.id;
    // The CloudWatch metric filter behind the failed-verification alarm matches this message (lib/monitoring.ts).
    if (!valid)
      logger.error(VERIFICATION_FAILED_LOG, {
        firmId: run.firmId,
        verificationId: run.id,
        brokenCount: run.cursor.brokenCount,
      });
  } catch (error) {
    if (error instanceof RunAlreadyCompleted) return;
    throw error;
  }
  if (valid && run.toSequence > 0) {
    try {
      const item = checkpointItem(deps, run.firmId, {
        sequenceNumber: run.toSequence,
        chainHash: run.cursor.previousChainHash!,
        verifiedAt: at,
        verificationId: run.id,
      }).Put!;
      await deps.db.send(new PutCommand(item));
    } catch (error) {
      // A later run already moved the checkpoint further: nothing to do.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

class RunAlreadyCompleted extends Error {}

export function presentRun(run: VerificationRun) {
  const total = Math.max(0, run.toSequence - run.fromSequence + 1);
  const checkedThrough = Math.min(run.cursor.nextSequence - 1, run.toSequence);
  return {
    id: run.id,
    mode: run.mode,
    status: run.status,
    trigger: run.trigger,
    fromSequence: run.fromSequence,
    toSequence: run.toSequence,
    progress: {
      checkedThrough,
      total,
      percent: total === 0 ? 100 : Math.floor(((checkedThrough - run.fromSequence + 1) * 100) / total),
    },
    recordsChecked: run.cursor.recordsChecked,
    brokenCount: run.cursor.brokenCount,
    valid: run.valid,
    startedAt: run.startedAt,
    completedAt: run.completedAt,
    ledgerRecordId: run.ledgerRecordId,
    backgroundVerificationId: run.backgroundVerificationId,
    requestedBy: JSON.parse(run.requestedBy) as Actor,
  };
}

export function resultOf(run: VerificationRun) {
  return {
    complete: run.status === 'COMPLETED',
    valid: run.valid,
    checkedFrom: run.fromSequence,
    checkedThrough: Math.min(run.cursor.nextSequence - 1, run.toSequence),
    recordsChecked: run.cursor.recordsChecked,
    brokenCount: run.cursor.brokenCount,
    brokenRecords: run.brokenRecords,
  };
}

export async function integrityStatus(deps: Deps, firmId: string) {
  const [head, runs] = await Promise.all([readHead(deps, firmId), recentRuns(deps, firmId, 50)]);
  const last = runs.find((r) => r.status === 'COMPLETED') ?? null;
  return {
    firmId,
    totalRecords: head.sequenceNumber,
    lastVerification: last ? { ...presentRun(last), result: resultOf(last) } : null,
    recentVerifications: runs.slice(0, 10).map(presentRun),
  };
}

export async function findVerification(deps: Deps, firmId: string, id: string) {
  const run = await getRun(deps, firmId, id);
  if (!run) throw new NotFoundError('Verification not found');
  return { verification: presentRun(run), result: resultOf(run) };
}

// ---------------------------------------------------------------------------------------------------------
// The immutable copy: discrepancy, missing records, restore, backup status
// ---------------------------------------------------------------------------------------------------------

interface ImmutableCopy {
  key: string;
  record: LedgerRecord;
  bytes: string;
}

async function readCopy(deps: Deps, key: string): Promise<ImmutableCopy | null> {
  const object = await deps.objects.get('immutable', key);
  if (!object) return null;
  const bytes = Buffer.from(object.body).toString('utf8');
  return { key, bytes, record: recordOf(JSON.parse(bytes) as LedgerRecord) };
}

/**
 * The immutable copy for a sequence number. Object Lock forbids overwrites but not new keys, so should two
 * objects claim one sequence number, the one whose own hashes and signature hold is the copy.
 */
async function copyAtSequence(
  deps: Deps,
  firmId: string,
  sequenceNumber: number,
): Promise<ImmutableCopy | null> {
  const copies: ImmutableCopy[] = [];
  for await (const key of deps.objects.list('immutable', immutableSequencePrefix(firmId, sequenceNumber))) {
    const copy = await readCopy(deps, key);
    if (copy) copies.push(copy);
  }
  if (copies.length <= 1) return copies[0] ?? null;
  const sound = copies.filter((c) => c.record.firmId === firmId && checkRecord(c.record).length === 0);
  if (sound.length !== 1)
    throw new ConflictError(
      `The immutable store holds ${copies.length} candidate copies of sequence ${sequenceNumber}`,
    );
  return sound[0]!;
}

/**
 * Resolves a record id to the sequence number it concerns: the immutable copy with that id is authoritative
 * (looked up first at the positions of database rows carrying the id, then across the firm's copies); an id
 * only the database knows (a forged row) resolves to the position of its row.
 */
async function resolveSequence(deps: Deps, firmId: string, recordId: string): Promise<number | null> {
  const positions = (await rowsWithRecordId(deps, firmId, recordId)).map((row) => row.position);
  for (const position of positions) {
    for await (const key of deps.objects.list('immutable', immutableSequencePrefix(firmId, position))) {
      if (parseImmutableRecordKey(key)?.recordId === recordId) return position;
    }
  }
  for await (const key of deps.objects.list('immutable', immutableFirmPrefix(firmId))) {
    const parsed = parseImmutableRecordKey(key);
    if (parsed?.recordId === recordId) return parsed.sequenceNumber;
  }
  return positions[0] ?? null;
}

async function compareAt(deps: Deps, firmId: string, recordId: string | null, sequenceNumber: number) {
  const [database, copy] = await Promise.all([
    getRecordBySequence(deps, firmId, sequenceNumber),
    copyAtSequence(deps, firmId, sequenceNumber),
  ]);
  return {
    recordId: recordId ?? copy?.record.id ?? database?.id ?? null,
    sequenceNumber,
    database,
    immutable: copy?.record ?? null,
    immutableKey: copy?.key ?? null,
    diffs: diffRecords(database, copy?.record ?? null),
  };
}

/** Field-by-field comparison of the database row and the immutable copy for a record id. */
export async function discrepancy(deps: Deps, firmId: string, recordId: string) {
  const sequenceNumber = await resolveSequence(deps, firmId, recordId);
  if (sequenceNumber === null) throw new NotFoundError('Ledger record not found');
  const { immutableKey: _key, ...comparison } = await compareAt(deps, firmId, recordId, sequenceNumber);
  return comparison;
}

/** The immutable copy of a sequence number whose database row is gone; 404 if it never existed or is present. */
export async function missingRecord(deps: Deps, firmId: string, sequenceNumber: number) {
  const comparison = await compareAt(deps, firmId, null, sequenceNumber);
  if (comparison.immutable === null)
    throw new NotFoundError(`No record with sequence number ${sequenceNumber} was ever written`);
  if (comparison.database !== null)
    throw new NotFoundError(`Record ${sequenceNumber} is present in the database`);
  const { immutableKey: _key, ...body } = comparison;
  return body;
}

/**
 * Restores the database row for a record from its immutable copy, committed atomically with a CHAIN_REPAIRED
 * record that says what was restored. A row that already matches is a no-op (no second CHAIN_REPAIRED); two
 * concurrent restores of the same damage write one repair (a marker keyed by the damaged state).
 */
export async function restoreRecord(deps: Deps, principal: Principal, recordId: string) {
  const sequenceNumber = await resolveSequence(deps, principal.firmId, recordId);
  if (sequenceNumber === null) throw new NotFoundError('Ledger record not found');
  const { database, immutable, immutableKey, diffs } = await compareAt(
    deps,
    principal.firmId,
    recordId,
    sequenceNumber,
  );
  if (!immutable)
    throw new NotFoundError(`No immutable copy of sequence number ${sequenceNumber} exists to restore from`);
  const unchanged = { restored: false, action: 'NONE' as const, recordId: immutable.id, sequenceNumber };
  if (database && canonicalJson(database) === canonicalJson(immutable)) {
    return {
      ...unchanged,
      message: 'The database row already matches the immutable copy',
      repairRecordId: null,
      fieldsRestored: [],
    };
  }
  const action = database ? ('OVERWRITTEN' as const) : ('REINSERTED' as const);
  const damage = createHash('sha256')
    .update(database ? canonicalJson(database) : 'absent')
    .digest('hex');
  const fieldsRestored = diffs.map((d) => d.field);
  try {
    const repair = await appendRecord(
      deps,
      {
        firmId: principal.firmId,
        eventType: 'CHAIN_REPAIRED',
        actor: actorOf(principal),
        documentHash: immutable.documentHash,
        documentMetadata: {
          restoredRecordId: immutable.id,
          sequenceNumber,
          action,
          fieldsRestored,
          immutableKey,
          restoredRecordHash: immutable.recordHash,
          damagedRowDigest: damage,
        },
        reviewJobId: immutable.reviewJobId,
      },
      {
        with: [
          restoreRowItem(deps, immutable),
          {
            Put: {
              TableName: deps.tables.main,
              Item: {
                pk: keys.firmPk(principal.firmId),
                sk: `RESTORE#${padSequence(sequenceNumber)}#${damage}`,
                recordId: immutable.id,
                restoredAt: isoNow(deps.clock),
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
        onConflict: () => new AlreadyRestored(),
      },
    );
    return {
      restored: true,
      action,
      recordId: immutable.id,
      sequenceNumber,
      fieldsRestored,
      repairRecordId: repair.id,
      message: null,
    };
  } catch (error) {
    if (!(error instanceof AlreadyRestored)) throw error;
    return {
      ...unchanged,
      message: 'A concurrent restore already repaired this damage',
      repairRecordId: null,
      fieldsRestored: [],
    };
  }
}

class AlreadyRestored extends Error {}

const SPOT_CHECKS = 5;

/** Database against immutable store: counts, the latest record, and byte-for-byte spot checks of random records. */
export async function backupStatus(deps: Deps, firmId: string) {
  const [head, databaseCount] = await Promise.all([readHead(deps, firmId), countRecordRows(deps, firmId)]);
  let immutableCount = 0;
  for await (const key of deps.objects.list('immutable', immutableFirmPrefix(firmId))) {
    if (parseImmutableRecordKey(key)) immutableCount += 1;
  }
  const picks = new Set<number>();
  while (picks.size < Math.min(SPOT_CHECKS, head.sequenceNumber))
    picks.add(1 + Math.floor(Math.random() * head.sequenceNumber));
  const spotChecks = await Promise.all(
    [...picks]
      .sort((a, b) => a - b)
      .map(async (sequenceNumber) => {
        const [row, copy] = await Promise.all([
          getRecordBySequence(deps, firmId, sequenceNumber),
          copyAtSequence(deps, firmId, sequenceNumber).catch(() => null),
        ]);
        return {
          recordId: copy?.record.id ?? row?.id ?? null,
          sequenceNumber,
          match: row !== null && copy !== null && canonicalJson(row) === copy.bytes,
        };
      }),
  );
  const countsMatch = databaseCount === immutableCount;
  return {
    healthy: countsMatch && databaseCount === head.sequenceNumber && spotChecks.every((c) => c.match),
    database: { count: databaseCount },
    immutableStorage: { count: immutableCount },
    countsMatch,
    latestRecord:
      head.sequenceNumber > 0 ? { sequenceNumber: head.sequenceNumber, timestamp: head.timestamp } : null,
    spotChecks,
    checkedAt: isoNow(deps.clock),
  };
}

export type { BrokenRecord };
