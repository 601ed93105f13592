import { randomUUID } from 'node:crypto';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import { writeConditionally, type TransactItem } from '../store/conditional-write.js';
import {
  committedIntentItem,
  deleteIntent,
  failIntent,
  listIntents,
  putIntent,
  readIntent,
  withdrawIntent,
} from '../store/append-intent-store.js';
import { advanceHeadToLastRecord, commitBatch, type SealedAppend } from '../store/ledger-writes.js';
import { getRecordById, readHead, type ChainHead } from '../store/ledger-store.js';
import { acquireLease, readLease, releaseLease, renewLease } from '../store/sequencer-lease-store.js';
import { ServiceUnavailableError } from '../errors.js';
import { conditionChecks, extrasAt, placeBatch, planBatch, type PendingAppend } from './append-batch.js';
import { canonicalJson, computeChainHash, computeRecordHash, signedMessage } from '../ledger/hashing.js';
import { recordOf, type LedgerRecord } from '../ledger/record.js';
import { publicKeyBase64 } from '../ledger/signing-key.js';

/** How an append ended: committed at a position, or refused by its own condition (nothing written). */
export type Sequenced =
  { status: 'committed'; record: LedgerRecord; body: string } | { status: 'failed'; failedItem: number };

/** A sequencer lease lasts this long unless renewed: the longest a dead holder makes the firm's askers wait. */
export const LEASE_TTL_MS = 3_000;
/** An asker gives up (withdrawing its intent, answering 503) after this long: inside API Gateway's 30 s. */
export const ASK_TIMEOUT_MS = 25_000;
/** Intents read per batch; a transaction holds at most 100 items anyway. */
const INTENTS_PER_READ = 100;
/** Uncollected results (their asker died) older than this are cleared by the holder. */
const STALE_RESULT_MS = 60_000;
/** Attempts at one batch before its appends fail (each lost attempt re-reads the head). */
const BATCH_ATTEMPTS = 50;
/** An asker's looks for its record after the first: this far apart (ms), growing to POLL_MAX_MS. */
const POLL_STEP_MS = 5;
const POLL_MAX_MS = 50;
/** Every this many looks that find nothing, an asker reads its intent (failed?) and the lease (anyone there?). */
const SLOW_CHECK_EVERY = 3;
/**
 * For this long after finding the lease held by another instance, a new append of this process goes straight
 * to an intent instead of trying to take the lease first: at steady load the holder keeps it, and each try is
 * a failed conditional write. If the holder lets go meanwhile, the asker's slow check finds the lease free.
 */
const LEASE_SEEN_HELD_MS = 100;

interface LocalAppend {
  append: PendingAppend;
  settle: (result: Sequenced | Error) => void;
}

/** One process's view of one firm's sequencer. */
interface Lane {
  firmId: string;
  state: 'idle' | 'acquiring' | 'leading';
  /** This process's appends waiting for the lease it holds or is taking. */
  local: LocalAppend[];
  /** Who this lane is, as a lease holder. */
  holder: string;
  /**
   * How long this process's intents took to be committed lately (ms, moving average): an asker's first look
   * for its record waits about this long, so most find it at the first look instead of polling in 5 ms steps.
   */
  turnaroundMs: number;
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
  if (lane.state === 'idle') void takeOrHandOver(deps, lane);
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
        turnaroundMs: 20,
        leaseSeenHeldAt: 0,
      }),
    );
  return lane;
}

/** Takes the lease and leads, or hands this process's waiting appends over to the holder as intents. */
async function takeOrHandOver(deps: Deps, lane: Lane, lookFirst = true): Promise<void> {
  if (lookFirst && Date.now() - lane.leaseSeenHeldAt < LEASE_SEEN_HELD_MS) {
    handOver(deps, lane);
    return;
  }
  lane.state = 'acquiring';
  let acquired: boolean;
  try {
    acquired = await acquireLease(deps, lane.firmId, lane.holder, LEASE_TTL_MS);
  } catch (error) {
    lane.state = 'idle';
    failAll(lane.local.splice(0), error as Error);
    return;
  }
  if (!acquired) {
    lane.state = 'idle';
    lane.leaseSeenHeldAt = Date.now();
    handOver(deps, lane);
    return;
  }
  lane.state = 'leading';
  await lead(deps, lane);
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
  await putIntent(deps, append);
  const started = Date.now();
  let wait = Math.min(POLL_MAX_MS * 4, Math.max(POLL_STEP_MS, lane.turnaroundMs * 0.8));
  for (let look = 1; ; look++) {
    await sleep(wait);
    wait = Math.min(POLL_MAX_MS, POLL_STEP_MS * look);
    const record = await getRecordById(deps, append.firmId, append.recordId);
    if (record) {
      lane.turnaroundMs = 0.8 * lane.turnaroundMs + 0.2 * (Date.now() - started);
      const committed = recordOf(record);
      return { status: 'committed', record: committed, body: canonicalJson(committed) };
    }
    if (look % SLOW_CHECK_EVERY !== 0) continue;
    const state = await readIntent(deps, append.firmId, append.recordId);
    if (state?.state === 'FAILED') {
      await deleteIntent(deps, append.firmId, append.recordId);
      return { status: 'failed', failedItem: state.failedItem };
    }
    // Taken away: committed, and the record-id index has not caught up yet (it is eventually consistent).
    if (state === null) continue;
    if (Date.now() - started > ASK_TIMEOUT_MS) {
      const withdrawn = await withdrawIntent(deps, append.firmId, append.recordId);
      if (withdrawn.status === 'committed')
        throw new ServiceUnavailableError('The ledger is busy; retry the request', 1);
      continue; // it settled meanwhile: the next look finds the record or the failure
    }
    // Is anyone sequencing? A holder that died leaves the lease to run out.
    if (lane.state === 'idle') {
      const lease = await readLease(deps, append.firmId);
      if (!lease || lease.until < deps.clock.now().getTime()) void takeOrHandOver(deps, lane, false);
      else lane.leaseSeenHeldAt = Date.now();
    }
  }
}

/** Drains this process's appends and the firm's intents, batch after batch, while holding the lease. */
async function lead(deps: Deps, lane: Lane): Promise<void> {
  const signatures = new Map<string, string>();
  let leaseUntil = Date.now() + LEASE_TTL_MS;
  let batch: LocalAppend[] = [];
  try {
    // The head and the first look at the intents in one round trip: a lone writer's path is short.
    const [firstHead, firstCandidates] = await Promise.all([readHead(deps, lane.firmId), gather(deps, lane)]);
    let head = firstHead;
    let firstLook: Candidate[] | undefined = firstCandidates;
    for (;;) {
      if (leaseUntil - Date.now() < LEASE_TTL_MS / 2) {
        if (!(await renewLease(deps, lane.firmId, lane.holder, LEASE_TTL_MS))) break;
        leaseUntil = Date.now() + LEASE_TTL_MS;
      }
      const candidates = firstLook ?? (await gather(deps, lane));
      firstLook = undefined;
      if (candidates.length === 0) {
        await releaseLease(deps, lane.firmId, lane.holder);
        // An asker may have left its intent after the last look and before the release: look once more.
        if ((await gather(deps, lane)).length === 0 && lane.local.length === 0) return;
        if (!(await acquireLease(deps, lane.firmId, lane.holder, LEASE_TTL_MS))) break;
        leaseUntil = Date.now() + LEASE_TTL_MS;
        head = await readHead(deps, lane.firmId);
        continue;
      }
      const planned = planBatch(candidates, (c) => (c.remote ? 1 : 0)).batch;
      batch = planned.filter((c) => !c.remote).map((c) => c.local!);
      lane.local = lane.local.filter((waiting) => !batch.includes(waiting));
      const committed = await commitInBatch(deps, head, planned, signatures);
      head = committed.head;
      // Appends left for the next batch (not signed in time): this process's go back in line, intents stay.
      lane.local.unshift(...committed.later.flatMap((c) => (c.local ? [c.local] : [])));
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
    if (lane.local.length > 0) void takeOrHandOver(deps, lane);
  }
}

type Candidate = PendingAppend & { remote: boolean; local?: LocalAppend };

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
    ...lane.local.map((local) => ({ ...local.append, remote: false, local })),
    ...pending.map((append) => ({ ...append, remote: true })),
  ];
  return candidates.sort((a, b) => (a.recordId < b.recordId ? -1 : a.recordId > b.recordId ? 1 : 0));
}

/**
 * Commits one batch, settling each of its appends; returns the new head, and the appends left for a later batch.
 * Appends whose own conditions fail (checked before signing, and by the commit itself) fail alone; the rest are
 * placed again. A signature is reused whenever a record's chain hash is unchanged by a re-placement, so a Sign is
 * spent again only for positions that really moved. When the signer refuses some records (throttled past its
 * deadline), the records signed before the first refused one commit and the rest wait for a later batch, so the
 * quota's signatures are not thrown away; only a batch whose first record cannot be signed fails (503).
 */
async function commitInBatch(
  deps: Deps,
  head: ChainHead,
  planned: Candidate[],
  signatures: Map<string, string>,
): Promise<{ head: ChainHead; later: Candidate[] }> {
  let entries = planned;
  let later: Candidate[] = [];
  const publicKey = await publicKeyBase64(deps.signer);
  for (let attempt = 1; attempt <= BATCH_ATTEMPTS && entries.length > 0; attempt++) {
    const payloads = placeBatch(entries, head);
    const extras = entries.map((entry, i) => extrasAt(entry, payloads[i]!.timestamp));
    const refused = await refusedBeforeSigning(deps, extras);
    if (refused.size > 0) {
      await Promise.all(
        [...refused].map(([index, failedItem]) => settleFailed(deps, entries[index]!, failedItem)),
      );
      entries = entries.filter((_, i) => !refused.has(i));
      continue;
    }
    let previousHash = head.chainHash;
    let unsigned = payloads.map((payload) => {
      const recordHash = computeRecordHash(payload);
      const chainHash = computeChainHash(previousHash, recordHash);
      const linked = { ...payload, previousHash, recordHash, chainHash };
      previousHash = chainHash;
      return linked;
    });
    const signing = await Promise.allSettled(
      unsigned
        .filter((r) => !signatures.has(r.chainHash))
        .map(async (r) => {
          const signature = await deps.signer.sign(signedMessage(r.chainHash));
          signatures.set(r.chainHash, Buffer.from(signature).toString('base64'));
        }),
    );
    const firstUnsigned = unsigned.findIndex((r) => !signatures.has(r.chainHash));
    if (firstUnsigned === 0)
      throw signing.find((s): s is PromiseRejectedResult => s.status === 'rejected')!.reason;
    if (firstUnsigned > 0) {
      later = [...entries.slice(firstUnsigned), ...later];
      entries = entries.slice(0, firstUnsigned);
      unsigned = unsigned.slice(0, firstUnsigned);
    }
    const sealed: SealedAppend[] = unsigned.map((r, i) => {
      const record: LedgerRecord = { ...r, signature: signatures.get(r.chainHash)!, publicKey };
      const body = canonicalJson(record);
      const entry = entries[i]!;
      return {
        record,
        body,
        extras: extras[i]!,
        ...(entry.remote ? { intentResult: committedIntentItem(deps, entry) } : {}),
      };
    });
    const outcome = await commitBatch(deps, head, sealed);
    switch (outcome.kind) {
      case 'committed':
        sealed.forEach((s, i) =>
          entries[i]!.local?.settle({ status: 'committed', record: s.record, body: s.body }),
        );
        return {
          head: {
            sequenceNumber: sealed.at(-1)!.record.sequenceNumber,
            chainHash: sealed.at(-1)!.record.chainHash,
            timestamp: sealed.at(-1)!.record.timestamp,
          },
          later,
        };
      case 'head-moved':
        logger.warn('Ledger head moved under the sequencer; placing the batch again', {
          firmId: entries[0]!.firmId,
        });
        head = await readHead(deps, entries[0]!.firmId);
        break;
      case 'head-behind':
        logger.warn('Ledger head is behind its records; advancing it', { firmId: entries[0]!.firmId, head });
        await advanceHeadToLastRecord(deps, entries[0]!.firmId, head);
        head = await readHead(deps, entries[0]!.firmId);
        break;
      case 'append-failed':
        await settleFailed(deps, entries[outcome.index]!, outcome.failedItem);
        entries = entries.filter((_, i) => i !== outcome.index);
        break;
      case 'withdrawn':
        entries = entries.filter((_, i) => i !== outcome.index);
        break;
      case 'conflict':
        await sleep(Math.random() * 10 * attempt);
        break;
    }
  }
  if (entries.length > 0)
    throw new Error(
      `Could not commit a batch of ${entries.length} ledger appends after ${BATCH_ATTEMPTS} attempts`,
    );
  return { head, later };
}

/**
 * Which appends would fail their own conditions now, by index, with the index of the failing extra write:
 * one transaction of condition checks, which writes nothing. Appends of one batch never share an item, so
 * each is judged alone.
 */
async function refusedBeforeSigning(
  deps: Deps,
  extras: readonly (readonly TransactItem[])[],
): Promise<Map<number, number>> {
  const checks = extras.flatMap((items, index) => conditionChecks(items).map((c) => ({ index, ...c })));
  const refused = new Map<number, number>();
  if (checks.length === 0) return refused;
  for (let attempt = 1; ; attempt++) {
    const outcome = await writeConditionally(
      deps,
      checks.map((c) => c.check),
    );
    if (outcome.status === 'committed') return refused;
    if (outcome.status === 'condition-failed') {
      for (const failed of outcome.failedItems) {
        const check = checks[failed]!;
        if (!refused.has(check.index)) refused.set(check.index, check.extra);
      }
      return refused;
    }
    if (attempt >= 10) return refused; // still contended: the commit itself judges the conditions
    await sleep(Math.random() * 10 * attempt);
  }
}

async function settleFailed(deps: Deps, entry: Candidate, failedItem: number): Promise<void> {
  if (entry.local) entry.local.settle({ status: 'failed', failedItem });
  else await failIntent(deps, entry, failedItem, deps.clock.now().toISOString());
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
