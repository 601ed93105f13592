import { randomUUID } from 'node:crypto';
import type { Deps } from '../runtime/deps.js';
import { inBackground } from '../runtime/background-work.js';
import { logger } from '../runtime/logger.js';
import { outsideRequest } from '../store/idempotency-context.js';
import {
  deleteIntent,
  listIntents,
  putIntent,
  putIntentIfLeaseHeld,
  readIntent,
  withdrawIntent,
} from '../store/append-intent-store.js';
import { getRecordById, readHead, type ChainHead } from '../store/ledger-store.js';
import {
  acquireLease,
  leaseReleaseItem,
  readLease,
  releaseLease,
  renewLease,
  type LeaseTaken,
} from '../store/sequencer-lease-store.js';
import { ServiceUnavailableError } from '../errors.js';
import { dependencyBudgets } from '../runtime/config.js';
import { isUnavailable } from './unavailable.js';
import { planBatch, type PendingAppend } from './append-batch.js';
import { archiveBatch } from './archive.js';
import { subscribersOfFirm } from './dispatch.js';
import { triggerCheckpoint } from './log-trigger.js';
import {
  checkAhead,
  commitInBatch,
  sleep,
  type Candidate,
  type LocalAppend,
  type Sequenced,
} from './batch-commit.js';
import { canonicalJson } from '../ledger/hashing.js';
import { recordOf } from '../ledger/record.js';

/** A sequencer lease lasts this long unless renewed: the longest a dead holder makes the firm's askers wait. */
export const LEASE_TTL_MS = 3_000;
/**
 * An asker gives up (withdrawing its intent, answering 503) after REQUEST_BUDGET_MS (8 s by default: with the doubt
 * below, inside the route functions' 20 s and API Gateway's 30 s; shared/runtime/config.ts).
 */
const askTimeoutMs = (): number => dependencyBudgets().requestBudgetMs;
/**
 * After its deadline, how long an asker that cannot reach the table goes on trying to learn its append's fate: 3 s,
 * so that the deadline, this and one call in flight (DEPENDENCY_BUDGET_MS) end within the route functions' 20 s.
 */
const ASK_DOUBT_MS = 3_000;
const askDoubtMs = (): number => ASK_DOUBT_MS;
/** Intents read per batch; a transaction holds at most 100 items anyway. */
const INTENTS_PER_READ = 100;
/** Uncollected results (their asker died) older than this are cleared by the holder. */
const STALE_RESULT_MS = 60_000;
/** An asker's looks for its record after the first: this far apart (ms), growing to POLL_MAX_MS. */
const POLL_STEP_MS = 5;
const POLL_MAX_MS = 50;
/** An asker's first look, once its intent is written: this long at first, then tuned (firstLookAfter). */
const FIRST_LOOK_INITIAL_MS = 20;
const FIRST_LOOK_MAX_MS = 200;
/** Every this many looks that find nothing, an asker reads its intent (failed?) and the lease (anyone there?). */
const SLOW_CHECK_EVERY = 3;
/**
 * For this long after finding the lease held by another instance, a new append of this process first tries to
 * leave its intent on the condition that the lease is still held (one transaction), instead of first trying to
 * take the lease: at steady load the holder keeps it, and each try was a failed conditional write.
 */
const LEASE_SEEN_HELD_MS = 2_000;

/** One process's view of one firm's sequencer. */
interface Lane {
  firmId: string;
  state: 'idle' | 'acquiring' | 'leading';
  /** This process's appends waiting for the lease it holds or is taking. */
  local: LocalAppend[];
  /** Who this lane is, as a lease holder. */
  holder: string;
  /**
   * How long an asker of this process waits, once its intent is written, before its first look for its record
   * (ms). Tuned by how the looks went (firstLookAfter): about when records turn up, so an asker seldom looks
   * twice and never sleeps long past its commit.
   */
  firstLookMs: number;
  /** When this process last found the firm's lease held by another instance (epoch ms). */
  leaseSeenHeldAt: number;
}

const lanes = new WeakMap<Deps, Map<string, Lane>>();

/**
 * Group commit across instances. An append either joins the batch of the sequencer this process holds for its
 * firm, or takes the firm's sequencer lease and becomes the sequencer, or, when another instance holds it,
 * leaves an intent in the ledger table and waits for its result. The sequencer drains its own and the
 * intents in order, in batches: each batch is placed after the head, its appends' own conditions are checked
 * before anything is signed, its records are hashed in order and signed in parallel, and it commits in one
 * conditional transaction on the head (docs/architecture.md §5).
 */
export function sequence(deps: Deps, append: PendingAppend): Promise<Sequenced> {
  const lane = laneOf(deps, append.firmId);
  const result = new Promise<Sequenced>((resolve, reject) =>
    lane.local.push({ append, settle: (r) => (r instanceof Error ? reject(r) : resolve(r)) }),
  );
  // The lane's loop serves every request of the instance: it runs outside this one's context.
  if (lane.state === 'idle') inBackground(outsideRequest(() => takeOrHandOver(deps, lane)));
  return result;
}

function laneOf(deps: Deps, firmId: string): Lane {
  let byFirm = lanes.get(deps);
  if (!byFirm) lanes.set(deps, (byFirm = new Map()));
  let lane = byFirm.get(firmId);
  if (!lane)
    byFirm.set(
      firmId,
      (lane = {
        firmId,
        state: 'idle',
        local: [],
        holder: randomUUID(),
        firstLookMs: FIRST_LOOK_INITIAL_MS,
        leaseSeenHeldAt: 0,
      }),
    );
  return lane;
}

/** Takes the lease and leads, or hands this process's waiting appends over to the holder as intents. */
async function takeOrHandOver(deps: Deps, lane: Lane, lookFirst = true): Promise<void> {
  lane.state = 'acquiring';
  let acquired: LeaseTaken;
  try {
    if (
      lookFirst &&
      Date.now() - lane.leaseSeenHeldAt < LEASE_SEEN_HELD_MS &&
      (await leaveWhileHeld(deps, lane))
    ) {
      lane.state = 'idle';
      return;
    }
    // The appends' own conditions are checked while the lease is taken: one round trip off a lone writer's path.
    const [taken, refused] = await Promise.all([
      acquireLease(deps, lane.firmId, lane.holder, LEASE_TTL_MS),
      checkAhead(deps, [...lane.local]),
    ]);
    acquired = taken;
    lane.local = lane.local.filter((waiting) => !refused.has(waiting));
  } catch (error) {
    lane.state = 'idle';
    failAll(lane.local.splice(0), error as Error);
    return;
  }
  if (!acquired.taken) {
    lane.state = 'idle';
    lane.leaseSeenHeldAt = Date.now();
    handOver(deps, lane);
    return;
  }
  lane.state = 'leading';
  await lead(deps, lane, acquired.head);
}

/**
 * Leaves this process's first waiting append as an intent on the condition that another instance holds the
 * lease (one transaction), then the others as plain intents; false, with nothing left, when the lease is free.
 */
async function leaveWhileHeld(deps: Deps, lane: Lane): Promise<boolean> {
  const first = lane.local[0]!;
  const started = Date.now();
  try {
    if (!(await putIntentIfLeaseHeld(deps, first.append, deps.clock.now().getTime()))) return false;
  } catch (error) {
    // The table did not answer: the intent may be there, so the append waits for its fate like any intent's
    // (an error now could answer an append a holder commits later, issue 32). awaitRecord settles it.
    if (!isUnavailable(error)) throw error;
  }
  lane.leaseSeenHeldAt = Date.now();
  lane.local.shift();
  awaitRecord(deps, lane, first.append, started).then(first.settle, first.settle);
  handOver(deps, lane);
  return true;
}

function handOver(deps: Deps, lane: Lane): void {
  for (const waiting of lane.local.splice(0))
    waitAsIntent(deps, lane, waiting.append).then(waiting.settle, waiting.settle);
}

function failAll(appends: readonly LocalAppend[], error: Error): void {
  for (const waiting of appends) waiting.settle(error);
}

/**
 * Leaves an intent for the holder and waits for its record: the commit takes the intent away in the record's
 * transaction, so the record itself is the result (looked up by its id; no result item to write, read and
 * delete). The first look waits about as long as intents took lately; later looks come every few ms. Every few
 * empty looks it reads the intent (a failed append is marked there) and, when nobody seems to sequence, the
 * lease, and takes over when the lease is free or ran out.
 */
async function waitAsIntent(deps: Deps, lane: Lane, append: PendingAppend): Promise<Sequenced> {
  const started = Date.now();
  try {
    await putIntent(deps, append);
  } catch (error) {
    // Unanswered: the intent may have been written, and a holder may commit it (see leaveWhileHeld).
    if (!isUnavailable(error)) throw error;
  }
  return awaitRecord(deps, lane, append, started);
}

/**
 * Waits for the record of an intent left at `started` (see waitAsIntent). Commit ⇒ record (issue 32): the asker
 * answers an error only once it knows its append was not committed and never will be: its intent withdrawn, or
 * marked failed, or (the table unreachable past its deadline) never found. A look the table does not answer is
 * simply looked again; after REQUEST_BUDGET_MS the intent is withdrawn (503 with Retry-After).
 */
async function awaitRecord(
  deps: Deps,
  lane: Lane,
  append: PendingAppend,
  started: number,
): Promise<Sequenced> {
  const firstWait = lane.firstLookMs;
  let wait = firstWait;
  let firstLookAt = 0;
  for (let look = 1; ; look++) {
    await sleep(wait);
    if (look === 1) firstLookAt = Date.now();
    wait = Math.min(POLL_MAX_MS, POLL_STEP_MS * look);
    try {
      const settled = await lookForRecord(deps, lane, append, started, look, firstWait, firstLookAt);
      if (settled) return settled;
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      // The table did not answer. Past the deadline and the doubt that follows it, nothing more can be learnt in
      // this request: 503. The intent may still be committed by a holder once the table answers again: the one
      // case of an error for a committed append (docs/operations.md, "Faults"; an Idempotency-Key's retry says so).
      if (Date.now() - started > askTimeoutMs() + askDoubtMs()) throw error;
    }
  }
}

/** One look of awaitRecord: the record, the append's failure or withdrawal, or undefined (look again). */
async function lookForRecord(
  deps: Deps,
  lane: Lane,
  append: PendingAppend,
  started: number,
  look: number,
  firstWait: number,
  firstLookAt: number,
): Promise<Sequenced | undefined> {
  const record = await getRecordById(deps, append.firmId, append.recordId);
  if (record) {
    lane.firstLookMs = firstLookAfter(firstWait, look, Date.now() - firstLookAt);
    const committed = recordOf(record);
    return { status: 'committed', record: committed, body: canonicalJson(committed) };
  }
  if (look % SLOW_CHECK_EVERY !== 0) return undefined;
  const state = await readIntent(deps, append.firmId, append.recordId);
  if (state?.state === 'FAILED') {
    await deleteIntent(deps, append.firmId, append.recordId);
    return { status: 'failed', failedItem: state.failedItem };
  }
  const late = Date.now() - started > askTimeoutMs();
  // Taken away: committed, and the record-id index has not caught up yet (it is eventually consistent). Or, when
  // writing it went unanswered, never written: long past the deadline and still no record says so.
  if (state === null) {
    if (late && Date.now() - started > askTimeoutMs() + askDoubtMs())
      throw new ServiceUnavailableError('The ledger is busy; retry the request', 1);
    return undefined;
  }
  if (late) {
    const withdrawn = await withdrawIntent(deps, append.firmId, append.recordId);
    if (withdrawn.status === 'committed')
      throw new ServiceUnavailableError('The ledger is busy; retry the request', 1);
    return undefined; // it settled meanwhile: the next look finds the record or the failure
  }
  // Is anyone sequencing? A holder that died leaves the lease to run out.
  if (lane.state === 'idle') {
    const lease = await readLease(deps, append.firmId);
    if (!lease || lease.until < deps.clock.now().getTime())
      inBackground(outsideRequest(() => takeOrHandOver(deps, lane, false)));
    else lane.leaseSeenHeldAt = Date.now();
  }
  return undefined;
}

/**
 * The next first-look wait after an asker waited `firstWait` and found its record at look `looks`, `lateMs` after
 * its first look. Found at once: the record may have been there a while, so look sooner next time. Found at the
 * second look: about right. Later: the first look came too soon by about `lateMs`, so wait half of that longer.
 * Measuring the whole turnaround instead (intent to record found) feeds the wait back into itself: with the first
 * look at 80 % of it, askers settled on waiting ~150 ms for records committed ~80 ms after their intents, i.e. found
 * them ~80 ms late (docs/benchmarks-history.md).
 */
export function firstLookAfter(firstWait: number, looks: number, lateMs: number): number {
  const next = looks === 1 ? firstWait * 0.8 : looks === 2 ? firstWait : firstWait + lateMs / 2;
  return Math.min(FIRST_LOOK_MAX_MS, Math.max(POLL_STEP_MS, next));
}

/**
 * Drains this process's appends and the firm's intents, batch after batch, while holding the lease. `releasedAt`
 * is the head the lease was released with (acquireLease), null when it ran out or was never held.
 */
async function lead(deps: Deps, lane: Lane, releasedAt: ChainHead | null): Promise<void> {
  const signatures = new Map<string, string>();
  let leaseUntil = Date.now() + LEASE_TTL_MS;
  let batch: LocalAppend[] = [];
  try {
    // A released lease gives the head, and its last holder looked for intents just before it let go: the first
    // batch is this process's appends, straight to signing (a lone writer's path: the lease, the signature, the
    // commit). Intents left meanwhile are found by the look after that batch. A lease that ran out was left by a
    // holder that died or froze, and an asker taking the lease over comes for intents: then the intents are read
    // at once (their askers are waiting), with the head unless the lease gave it.
    const [firstHead, firstCandidates] =
      releasedAt && lane.local.length > 0
        ? [releasedAt, localCandidates(lane)]
        : await Promise.all([releasedAt ?? readHead(deps, lane.firmId), gather(deps, lane)]);
    let head = firstHead;
    let firstLook: Candidate[] | undefined = firstCandidates;
    /** False once the lease was given up with a batch this holder took for its last (see below). */
    let held = true;
    for (;;) {
      if (held && leaseUntil - Date.now() < LEASE_TTL_MS / 2) {
        if (!(await renewLease(deps, lane.firmId, lane.holder, LEASE_TTL_MS))) break;
        leaseUntil = Date.now() + LEASE_TTL_MS;
      }
      const candidates = firstLook ?? (await gather(deps, lane));
      firstLook = undefined;
      if (candidates.length === 0 || !held) {
        if (held) {
          await releaseLease(deps, lane.firmId, lane.holder, head);
          held = false;
          // An asker may have left its intent after the last look and before the release: look once more.
          if ((await gather(deps, lane)).length === 0 && lane.local.length === 0) return;
        } else if (candidates.length === 0) {
          return; // given up with the last batch, and nothing came since
        }
        // Work waits and the lease is free: take it again with this process's appends' own conditions checked, in
        // one round trip.
        const [taken, refused] = await Promise.all([
          acquireLease(deps, lane.firmId, lane.holder, LEASE_TTL_MS),
          checkAhead(deps, [...lane.local]),
        ]);
        lane.local = lane.local.filter((waiting) => !refused.has(waiting));
        if (!taken.taken) break;
        held = true;
        leaseUntil = Date.now() + LEASE_TTL_MS;
        // Released by this holder (its own head) unless another took and released it meanwhile (theirs).
        head = taken.head ?? (await readHead(deps, lane.firmId));
        // Only this process's appends were waiting (the lone writer's next request): batch them at once. Intents
        // are read again under the lease (another holder may have committed some meanwhile).
        if (candidates.length > 0 && candidates.every((c) => !c.remote)) firstLook = localCandidates(lane);
        continue;
      }
      const planned = planBatch(candidates, (c) => (c.remote ? 1 : 0)).batch;
      batch = planned.filter((c) => !c.remote).map((c) => c.local!);
      lane.local = lane.local.filter((waiting) => !batch.includes(waiting));
      // Who hears of the batch's records (the firm's webhook endpoints) is read while the batch is sealed and
      // committed, off the path of the holder's own callers.
      const subscribers = subscribersOfFirm(deps, lane.firmId);
      subscribers.catch(() => undefined); // awaited by the archive, which reports a failed read as its own
      // A lone append (no intent of another instance, nothing else of this process waiting) gives the lease up in
      // its own commit: one call fewer than releasing after it, the next append finds the lease free at once, and
      // a holder frozen after answering (Lambda) holds no lease. An intent left meanwhile is found by the look
      // after the commit; the lease is taken again for it.
      const lone = candidates.length === 1 && !candidates[0]!.remote && lane.local.length === 0;
      const committed = await commitInBatch(
        deps,
        head,
        planned,
        signatures,
        lone ? (at) => leaseReleaseItem(deps, lane.firmId, lane.holder, at) : undefined,
      );
      head = committed.head;
      if (committed.released) held = false;
      // The firm's verifiable log takes the batch in within CHECKPOINT_INTERVAL_MS (at most one message a window).
      const last = committed.committed.at(-1);
      if (last) triggerCheckpoint(deps, lane.firmId, last.record.sequenceNumber);
      // The batch's immutable copies run beside the next batch; the holder's own callers answer once the copies
      // are written (intents' askers answer when they find their records). It never throws, and the lane does not
      // wait for the rest of it (the outbox entries' deletion): a lone writer's next append would wait for it.
      inBackground(
        archiveBatch(deps, committed.committed, subscribers, () => {
          for (const { record, body, local } of committed.committed)
            local?.settle({ status: 'committed', record, body });
        }),
      );
      // Appends left for the next batch (not signed in time): this process's go back in line, intents stay.
      lane.local.unshift(...committed.later.flatMap((c) => (c.local ? [c.local] : [])));
      // A condition checked ahead of this batch says nothing once it committed: the waiting ones are checked again.
      for (const waiting of lane.local) waiting.checkedAhead = false;
      batch = [];
      // Signatures of the appends left over stay usable while their positions do not move.
      if (committed.later.length === 0) signatures.clear();
    }
    // The lease was lost to another holder: this process's appends wait for it as intents.
    handOver(deps, lane);
  } catch (error) {
    logger.error('Sequencing a batch of ledger appends failed', {
      firmId: lane.firmId,
      error: error as Error,
    });
    failAll(batch, error as Error);
    failAll(lane.local.splice(0), error as Error);
    await releaseLease(deps, lane.firmId, lane.holder).catch(() => undefined);
  } finally {
    lane.state = 'idle';
    // Appends that joined while the lane was winding down (e.g. during the release after a failed batch) saw
    // it busy and started nothing: without a new round they would wait forever.
    if (lane.local.length > 0) inBackground(takeOrHandOver(deps, lane));
  }
}

/** This process's waiting appends and the firm's intents, in record-id (asking) order. */
async function gather(deps: Deps, lane: Lane): Promise<Candidate[]> {
  const staleBefore = new Date(deps.clock.now().getTime() - STALE_RESULT_MS).toISOString();
  const { pending, stale } = await listIntents<PendingAppend>(
    deps,
    lane.firmId,
    INTENTS_PER_READ,
    staleBefore,
  );
  await Promise.all(stale.map((recordId) => deleteIntent(deps, lane.firmId, recordId)));
  const candidates: Candidate[] = [
    ...localCandidates(lane),
    ...pending.map((append) => ({ ...append, remote: true })),
  ];
  return candidates.sort(byRecordId);
}

/** This process's waiting appends as batch candidates, in record-id (asking) order. */
function localCandidates(lane: Lane): Candidate[] {
  return lane.local.map((local) => ({ ...local.append, remote: false, local })).sort(byRecordId);
}

const byRecordId = (a: Candidate, b: Candidate) =>
  a.recordId < b.recordId ? -1 : a.recordId > b.recordId ? 1 : 0;
