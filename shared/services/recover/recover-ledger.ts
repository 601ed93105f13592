/**
 * `ledgerctl recover ledger --firm F` (issue 32, fault 6): rebuilds a firm's ledger in the ledger table (record
 * rows with their list-index attributes, the chain head) from the immutable copies alone, after its items were
 * deleted or the table was lost. docs/operations.md has the procedure, docs/architecture.md §6c the design.
 *
 * 1. Refuses a non-empty ledger (a record row or a head) unless `force`, or unless it is resuming its own
 *    interrupted run (the checkpoint, checkpoint.ts).
 * 2. Takes the firm's sequencer lease for the run (renewed per chunk), so the firm's appends wait (and answer 503
 *    after their deadline) instead of writing into a chain being rebuilt.
 * 3. Lists the firm's copies (in chain order), reads them chunk by chunk, checks each one before anything is
 *    written (copy-check.ts: exact canonical bytes, hashes, signature under the key history at the record's time,
 *    firm and sequence number of its key, the link to the previous record), and writes the rows with
 *    BatchWriteItem (BulkWriter: unprocessed items resent) as `recordRow` builds them, the append's own row.
 *    After each chunk the checkpoint records the position reached; a run that crashes resumes there, and rows
 *    written again carry the same bytes.
 * 4. Stops at the first position it cannot recover (no copy: a gap; no copy that passes every check), and
 *    reports it: the chain is never rebuilt across a hole, so the head never claims a record that does not
 *    exist and no later record is put where it cannot be verified.
 * 5. Moves the head to the last recovered record, releases the lease with it and marks the checkpoint, in one
 *    transaction; then reconciles the firm's backup status (shared/services/integrity/backup-reconcile.ts) and
 *    registers the firm for reconciliation.
 */
import type { SigningKeyHistory } from '../../ledger/key-history.js';
import type { LedgerRecord } from '../../ledger/record.js';
import { isoNow } from '../../ports/clock.js';
import { ConflictError } from '../../errors.js';
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../runtime/deps.js';
import { getReconciliation, registerFirm } from '../../store/backup-store.js';
import { BulkWriter } from '../../store/bulk-write.js';
import { writeConditionally, type TransactItem } from '../../store/conditional-write.js';
import { send } from '../../store/dynamo.js';
import { immutableFirmPrefix, parseImmutableRecordKey } from '../../store/immutable-layout.js';
import { keys, SK_PREFIX } from '../../store/keys.js';
import { readHead, type ChainHead } from '../../store/ledger-store.js';
import { headItem, recordItem } from '../../store/ledger-writes.js';
import { clearTamperFlag, standingTamperFlags } from '../../store/tamper-store.js';
import { acquireLease, leaseReleaseItem, readLease, renewLease } from '../../store/sequencer-lease-store.js';
import { readKeyHistory } from '../../store/signing-key-store.js';
import { reconcileBackup } from '../integrity/backup-reconcile.js';
import { loadKeyHistory } from '../key-history.js';
import { immutableKeyHistoryKey } from '../signing-key-admin.js';
import { readCheckpoint, saveCheckpoint, type RecoveryCheckpoint } from './checkpoint.js';
import { chooseCopy, gapsIn, type CopyCandidate } from './copy-check.js';

/** Positions read, checked and written per step; the checkpoint moves once per chunk. */
const CHUNK = 1000;
/** Copies read at once (S3 GetObject: tens of ms each, so many in flight). */
const READ_WIDTH = 64;
/**
 * How long the recovery holds the firm's sequencer lease without renewing it. Long on purpose: after a crash the
 * firm's appends keep waiting (503) for this long, so the operator can resume before any append could land on
 * rows without a head.
 */
export const RECOVERY_LEASE_MS = 10 * 60_000;
/** How long to wait for a live sequencer (an append in flight) to let the lease go. */
const LEASE_WAIT_MS = 10_000;

export interface RecoverLedgerOptions {
  firmId: string;
  /** Rebuild over a ledger that is not empty (rows are replaced by their verified copies). */
  force?: boolean;
  /** Stop after this many records (the run pauses; the next one resumes from the checkpoint). */
  maxRecords?: number;
  /** BatchWriteItem calls in flight (default 8). */
  width?: number;
}

export interface RecoverLedgerResult {
  firmId: string;
  /**
   * `complete`: every copy recovered; `stopped`: a gap or an unusable copy ends the chain early (see gaps,
   * invalidCopies, notRecovered); `paused`: maxRecords reached, run again to continue; `nothing`: no copies.
   */
  status: 'complete' | 'stopped' | 'paused' | 'nothing';
  /** Records written by this run. */
  recovered: number;
  /** The position this run continued from (0: from the start). */
  resumedFrom: number;
  /** The head as this run left it (null while paused: the head is written last). */
  head: { sequenceNumber: number; chainHash: string | null } | null;
  /** Record copies the firm's listing holds. */
  copies: number;
  /** Runs of sequence numbers without any copy, below the highest copy. */
  gaps: { from: number; to: number }[];
  /** Copies that failed a check (or do not name a record), with every reason. */
  invalidCopies: { key: string; sequenceNumber: number | null; problems: string[] }[];
  /** What exists as copies above where the chain stopped, and was not written. */
  notRecovered: { fromSequence: number; toSequence: number; copies: number } | null;
  /**
   * The head the last backup reconciliation saw before this run, when it is above what was recovered: records
   * whose copies never reached the immutable store (still in the lost outbox) are lost beyond what copies show.
   */
  knownHeadAbove: number | null;
  batchCalls: number;
  unprocessedRetries: number;
  seconds: number;
  recordsPerSecond: number;
  phasesMs: Record<string, number>;
}

/** Does the firm's ledger partition hold a head or a record row? */
async function ledgerContents(deps: Deps, firmId: string): Promise<{ head: ChainHead; anyRow: boolean }> {
  const [head, rows] = await Promise.all([
    readHead(deps, firmId),
    send(deps.db, 'Query', {
      TableName: deps.tables.ledger,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :rec AND :recEnd',
      ExpressionAttributeValues: {
        ':pk': keys.firmPk(firmId),
        ':rec': SK_PREFIX.record,
        ':recEnd': `${SK_PREFIX.record}\u{10FFFF}`,
      },
      ProjectionExpression: 'pk',
      Limit: 1,
      ConsistentRead: true,
    }),
  ]);
  return { head, anyRow: (rows.Items?.length ?? 0) > 0 };
}

/**
 * The key history the copies are checked under: the table's; after a whole-table loss, the newest version
 * kept in the immutable store (`signing-keys/`, written with every rotation); else the genesis history of the
 * stack's first key.
 */
export async function recoveryKeyHistory(deps: Deps): Promise<SigningKeyHistory> {
  const stored = await readKeyHistory(deps);
  if (stored) return stored.history;
  const first = immutableKeyHistoryKey(0);
  let newest: string | undefined;
  for await (const key of deps.objects.list('immutable', first.slice(0, first.lastIndexOf('/') + 1)))
    newest = key;
  const object = newest ? await deps.objects.get('immutable', newest) : null;
  if (object) return JSON.parse(Buffer.from(object.body).toString('utf8')) as SigningKeyHistory;
  return (await loadKeyHistory(deps)).history;
}

/** The candidates of each position in `[from, to]`, read `READ_WIDTH` at a time, in position order. */
async function readPositions(
  deps: Deps,
  keysAt: Map<number, string[]>,
  from: number,
  to: number,
): Promise<CopyCandidate[][]> {
  const wanted: { position: number; key: string }[] = [];
  for (let position = from; position <= to; position++)
    for (const key of keysAt.get(position) ?? []) wanted.push({ position, key });
  const read: (CopyCandidate | null)[] = new Array<CopyCandidate | null>(wanted.length).fill(null);
  let next = 0;
  const lane = async () => {
    while (next < wanted.length) {
      const i = next++;
      const object = await deps.objects.get('immutable', wanted[i]!.key);
      if (object) read[i] = { key: wanted[i]!.key, bytes: Buffer.from(object.body).toString('utf8') };
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_WIDTH, wanted.length) }, lane));
  const out: CopyCandidate[][] = Array.from({ length: to - from + 1 }, () => []);
  wanted.forEach(({ position }, i) => {
    if (read[i]) out[position - from]!.push(read[i]);
  });
  return out;
}

/** Takes the firm's sequencer lease for the run (or keeps it, when resuming a run that still holds it). */
async function holdLease(deps: Deps, firmId: string, holder: string): Promise<void> {
  const deadline = Date.now() + LEASE_WAIT_MS;
  for (;;) {
    if (await renewLease(deps, firmId, holder, RECOVERY_LEASE_MS)) return;
    if ((await acquireLease(deps, firmId, holder, RECOVERY_LEASE_MS)).taken) return;
    if (Date.now() > deadline) {
      const lease = await readLease(deps, firmId);
      throw new ConflictError(
        `The firm's sequencer lease is held by ${lease?.holder ?? 'another writer'}: the firm is appending, or ` +
          'another recovery runs. Stop its writers (or wait for the other run) and try again',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function recoverLedger(deps: Deps, options: RecoverLedgerOptions): Promise<RecoverLedgerResult> {
  const started = performance.now();
  const phasesMs: Record<string, number> = {};
  let mark = started;
  const phase = (name: string) => {
    const at = performance.now();
    phasesMs[name] = Math.round(at - mark);
    mark = at;
  };
  const { firmId } = options;

  // 1. Where to start: a fresh run on an empty ledger, a resumed run, or (force) over what is there.
  const [contents, checkpoint, reconciliation] = await Promise.all([
    ledgerContents(deps, firmId),
    readCheckpoint(deps, firmId),
    getReconciliation(deps, firmId),
  ]);
  const resuming = resumable(checkpoint, contents.head);
  if (!resuming && (contents.anyRow || contents.head.sequenceNumber > 0) && !options.force)
    throw new ConflictError(
      `The ledger of ${firmId} is not empty (${contents.head.sequenceNumber > 0 ? `head at ${contents.head.sequenceNumber}` : 'record rows present'}): ` +
        'recovery rebuilds a lost ledger; pass --force to replace its rows with their verified copies',
    );
  const writer = new BulkWriter(deps, { width: options.width ?? 8 });
  let recovered = 0;
  let stoppedAt: number | null = null;
  const runId = resuming ? checkpoint!.runId : `rcv_${randomUUID()}`;
  let position = resuming ? checkpoint!.position : 0;
  let previousChainHash = resuming ? checkpoint!.chainHash : null;
  let lastTimestamp = resuming ? checkpoint!.timestamp : null;
  const resumedFrom = position;
  const startedAt = resuming ? checkpoint!.startedAt : isoNow(deps.clock);
  const holder = `recover:${runId}`;
  await holdLease(deps, firmId, holder);
  let owner = checkpoint?.runId ?? null;
  const save = async (status: RecoveryCheckpoint['status']) => {
    const saved = await saveCheckpoint(
      deps,
      firmId,
      {
        runId,
        status,
        position,
        chainHash: previousChainHash,
        timestamp: lastTimestamp,
        startedAt,
        updatedAt: isoNow(deps.clock),
      },
      owner,
    );
    if (!saved) throw new ConflictError(`Another recovery of ${firmId} started meanwhile; this one stops`);
    owner = runId;
  };
  if (!resuming) await save('running');
  phase('start');

  // 2. The firm's copies, by position.
  const keysAt = new Map<number, string[]>();
  const invalidCopies: RecoverLedgerResult['invalidCopies'] = [];
  let copies = 0;
  for await (const key of deps.objects.list('immutable', immutableFirmPrefix(firmId))) {
    const named = parseImmutableRecordKey(key);
    if (!named || named.firmId !== firmId) {
      invalidCopies.push({ key, sequenceNumber: null, problems: ['its key does not name a record copy'] });
      continue;
    }
    copies++;
    const list = keysAt.get(named.sequenceNumber);
    if (list) list.push(key);
    else keysAt.set(named.sequenceNumber, [key]);
  }
  const positions = [...keysAt.keys()].sort((a, b) => a - b);
  const highest = positions.at(-1) ?? 0;
  const gaps = gapsIn(positions);
  phase('list');
  if (highest === 0 && position === 0) {
    await finish(deps, firmId, holder, 'complete', null);
    return summary('nothing');
  }

  // 3. Read, check and write, chunk by chunk; the next chunk is read while this one is written.
  const history = await recoveryKeyHistory(deps);
  const budget = options.maxRecords ?? Number.POSITIVE_INFINITY;
  const chunkEnd = (from: number) => Math.min(highest, from + CHUNK - 1, position + budget - recovered);
  let reading: Promise<CopyCandidate[][]> | null =
    position < highest ? readPositions(deps, keysAt, position + 1, chunkEnd(position + 1)) : null;
  let readFrom = position + 1;
  while (reading && stoppedAt === null) {
    const chunk = await reading;
    const rows: Record<string, unknown>[] = [];
    let last: LedgerRecord | null = null;
    for (const [i, candidates] of chunk.entries()) {
      const at = { firmId, sequenceNumber: readFrom + i, previousChainHash };
      const { chosen, rejected } = chooseCopy(history, at, candidates);
      for (const r of rejected) invalidCopies.push({ ...r, sequenceNumber: at.sequenceNumber });
      if (!chosen) {
        stoppedAt = at.sequenceNumber;
        break;
      }
      rows.push(recordItem(deps, chosen.record).Put!.Item!);
      previousChainHash = chosen.record.chainHash;
      last = chosen.record;
    }
    const nextFrom = readFrom + chunk.length;
    const more = stoppedAt === null && nextFrom <= highest && recovered + rows.length < budget;
    reading = more ? readPositions(deps, keysAt, nextFrom, chunkEnd(nextFrom)) : null;
    readFrom = nextFrom;
    await writer.put(deps.tables.ledger, rows);
    await writer.flush();
    recovered += rows.length;
    if (last) {
      position = last.sequenceNumber;
      lastTimestamp = last.timestamp;
    }
    await save('running');
    if (!(await renewLease(deps, firmId, holder, RECOVERY_LEASE_MS)))
      throw new ConflictError(`The sequencer lease of ${firmId} was taken from this recovery; run it again`);
  }
  phase('records');

  // 4. Paused (budget spent, copies left): the head stays unwritten and the lease held; the next run resumes.
  if (stoppedAt === null && position < highest) return summary('paused');
  const status = stoppedAt === null ? 'complete' : 'stopped';
  const headWritten = position > 0 ? await finish(deps, firmId, holder, status, contents.head) : null;
  phase('head');
  await clearRecoveredFlags(deps, firmId, position);
  await reconcileBackup(deps, firmId);
  await registerFirm(deps, firmId);
  phase('reconcile');
  return summary(status, headWritten);

  /** Head, lease release and checkpoint in one transaction; the head only ever moves forward. */
  async function finish(
    deps: Deps,
    firmId: string,
    holder: string,
    status: 'complete' | 'stopped' | null,
    seen: ChainHead | null,
  ): Promise<ChainHead | null> {
    const head: ChainHead | null =
      position > 0
        ? { sequenceNumber: position, chainHash: previousChainHash, timestamp: lastTimestamp }
        : null;
    const items: TransactItem[] = [leaseReleaseItem(deps, firmId, holder, head ?? undefined)];
    const moveHead = head && seen && seen.sequenceNumber < head.sequenceNumber;
    if (moveHead)
      items.push(
        headItem(deps, { firmId, ...head, chainHash: head.chainHash!, timestamp: head.timestamp! }, seen),
      );
    if (status) {
      const updatedAt = isoNow(deps.clock);
      items.push({
        Put: {
          TableName: deps.tables.main,
          Item: {
            pk: keys.firmPk(firmId),
            sk: 'RECOVERY#LEDGER',
            runId,
            status,
            position,
            chainHash: previousChainHash,
            timestamp: lastTimestamp,
            startedAt,
            updatedAt,
          },
          ConditionExpression: 'runId = :run',
          ExpressionAttributeValues: { ':run': runId },
        },
      });
    }
    const outcome = await writeConditionally(deps, items);
    if (outcome.status !== 'committed')
      throw new ConflictError(
        `The head of ${firmId} moved while it was being recovered (${outcome.status}); run recovery again`,
      );
    return moveHead ? head : seen && seen.sequenceNumber > 0 ? seen : head;
  }

  function summary(
    status: RecoverLedgerResult['status'],
    head: ChainHead | null = null,
  ): RecoverLedgerResult {
    const seconds = (performance.now() - started) / 1000;
    const recordsPhase = (phasesMs.records ?? 0) / 1000;
    const beyond = stoppedAt === null ? [] : positions.filter((p) => p >= stoppedAt!);
    const known = reconciliation?.headSequence ?? 0;
    return {
      firmId,
      status,
      recovered,
      resumedFrom,
      head: head ? { sequenceNumber: head.sequenceNumber, chainHash: head.chainHash } : null,
      copies,
      gaps,
      invalidCopies,
      notRecovered:
        beyond.length > 0
          ? {
              fromSequence: stoppedAt!,
              toSequence: highest,
              copies: beyond.reduce((n, p) => n + (keysAt.get(p)?.length ?? 0), 0),
            }
          : null,
      knownHeadAbove: known > position ? known : null,
      batchCalls: writer.calls,
      unprocessedRetries: writer.retries,
      seconds: Math.round(seconds * 1000) / 1000,
      recordsPerSecond: recordsPhase > 0 ? Math.round(recovered / recordsPhase) : 0,
      phasesMs,
    };
  }
}

/**
 * A run to continue: the checkpoint's run did not finish (`running`) and nothing appended since (no head), or it
 * stopped at a gap and the head is still where it left it (the missing copy may have been put back since).
 */
function resumable(checkpoint: RecoveryCheckpoint | null, head: ChainHead): boolean {
  if (!checkpoint) return false;
  if (checkpoint.status === 'running') return head.sequenceNumber === 0;
  if (checkpoint.status === 'stopped')
    return head.sequenceNumber === checkpoint.position && head.chainHash === checkpoint.chainHash;
  return false;
}

/**
 * The tamper watch flagged the rows whose loss this run repaired (a REMOVE of each); recovery writes them back as
 * inserts, which the watch never judges, so their flags are cleared here, as restore clears the rows it repairs.
 * Rows above `recovered` (a gap stopped the run) keep theirs.
 */
async function clearRecoveredFlags(deps: Deps, firmId: string, recovered: number): Promise<void> {
  for (;;) {
    const { flags, more } = await standingTamperFlags(deps, firmId, 100);
    const repaired = flags.filter((flag) => flag.sequenceNumber <= recovered);
    await Promise.all(repaired.map((flag) => clearTamperFlag(deps, firmId, flag.sequenceNumber)));
    if (!more || repaired.length < flags.length) return;
  }
}
