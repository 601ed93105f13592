import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import { writeConditionally, type TransactItem } from '../store/conditional-write.js';
import { committedIntentItem, failIntent } from '../store/append-intent-store.js';
import { advanceHeadToLastRecord, commitBatch, type SealedAppend } from '../store/ledger-writes.js';
import { getRecordBySequence, headAt, readHead, type ChainHead } from '../store/ledger-store.js';
import { dependencyBudgets } from '../runtime/config.js';
import { isUnavailable } from './unavailable.js';
import {
  checkableTogether,
  conditionChecks,
  extrasAt,
  holdsTimestampToken,
  placeBatch,
  type PendingAppend,
} from './append-batch.js';
import { canonicalJson, computeChainHash, computeRecordHash, signedMessage } from '../ledger/hashing.js';
import type { LedgerRecord } from '../ledger/record.js';
import { isRotationAppend, planSigning } from './signing-plan.js';

/**
 * One batch of a firm's appends, committed by the sequencer that holds the firm's lease (./sequencer.ts):
 * placed after the head, their own conditions checked before anything is signed, hashed in order, signed in
 * parallel, committed in one conditional transaction; lost races re-place it (docs/architecture.md §5).
 */

/** How an append ended: committed at a position, or refused by its own condition (nothing written). */
export type Sequenced =
  { status: 'committed'; record: LedgerRecord; body: string } | { status: 'failed'; failedItem: number };

/** An append of the holder's own process, with how to answer its caller. */
export interface LocalAppend {
  append: PendingAppend;
  settle: (result: Sequenced | Error) => void;
  /**
   * Its own conditions held when checked ahead of the lane's first batch (checkAhead), so its first placement in
   * that batch skips them; the lane clears it once a batch commits (the state may have moved).
   */
  checkedAhead?: boolean;
}

/** An append of a batch: the holder's own (`local`) or another instance's intent (`remote`). */
export type Candidate = PendingAppend & { remote: boolean; local?: LocalAppend };

/** A committed record of a batch, with the holder's own caller when it is one of this process's appends. */
export interface CommittedAppend {
  record: LedgerRecord;
  body: string;
  local: LocalAppend | undefined;
}

export interface BatchResult {
  head: ChainHead;
  /** Appends left for a later batch (not signed in time). */
  later: Candidate[];
  committed: CommittedAppend[];
  /** The sequencer lease was given up with the commit (asked for, and still this holder's). */
  released: boolean;
}

/** Attempts at one batch before its appends fail (each lost attempt re-reads the head). */
const BATCH_ATTEMPTS = 50;

/**
 * Commits one batch; returns the new head, the appends committed (the caller archives them and answers the
 * holder's own callers) and the appends left for a later batch. Failed appends are settled here.
 * Appends whose own conditions fail (checked before signing, and by the commit itself) fail alone; the rest are
 * placed again. A signature is reused whenever a record's chain hash is unchanged by a re-placement, so a Sign is
 * spent again only for positions that really moved. When the signer refuses some records (throttled past its
 * deadline), the records signed before the first refused one commit and the rest wait for a later batch, so the
 * quota's signatures are not thrown away; only a batch whose first record cannot be signed fails (503).
 */
export async function commitInBatch(
  deps: Deps,
  head: ChainHead,
  planned: Candidate[],
  signatures: Map<string, string>,
  releaseLease?: (head: ChainHead) => TransactItem,
): Promise<BatchResult> {
  let entries = planned;
  let release = releaseLease;
  let later: Candidate[] = [];
  for (let attempt = 1; attempt <= BATCH_ATTEMPTS && entries.length > 0; attempt++) {
    // The key by the records' timestamps, one key per batch, SIGNING_KEY_ROTATED first on a change (issue 15).
    entries = entries.filter((e) => !isRotationAppend(e));
    let payloads = placeBatch(entries, head);
    const plan = await planSigning(deps, head, payloads);
    if (plan.keep < entries.length) {
      later = [...entries.slice(plan.keep), ...later];
      entries = entries.slice(0, plan.keep);
    }
    if (plan.rotation) entries = [{ ...plan.rotation, remote: false }, ...entries];
    if (plan.rotation || payloads.length !== entries.length) payloads = placeBatch(entries, head);
    const { publicKey, fingerprint } = plan.key;
    const signatureKey = (chainHash: string) => `${fingerprint}:${chainHash}`;
    const extras = entries.map((entry, i) => extrasAt(entry, payloads[i]!.timestamp));
    const refused = await refusedBeforeSigning(
      deps,
      entries.map((entry, i) =>
        attempt === 1 && entry.local?.checkedAhead ? [] : conditionChecks(extras[i]!, entry.unchecked),
      ),
    );
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
        .filter((r) => !signatures.has(signatureKey(r.chainHash)))
        .map(async (r) => {
          const signature = await plan.key.signer.sign(signedMessage(r.chainHash));
          signatures.set(signatureKey(r.chainHash), Buffer.from(signature).toString('base64'));
        }),
    );
    const firstUnsigned = unsigned.findIndex((r) => !signatures.has(signatureKey(r.chainHash)));
    if (firstUnsigned === 0)
      throw signing.find((s): s is PromiseRejectedResult => s.status === 'rejected')!.reason;
    if (firstUnsigned > 0) {
      later = [...entries.slice(firstUnsigned), ...later];
      entries = entries.slice(0, firstUnsigned);
      unsigned = unsigned.slice(0, firstUnsigned);
    }
    const sealed: SealedAppend[] = unsigned.map((r, i) => {
      const record: LedgerRecord = { ...r, signature: signatures.get(signatureKey(r.chainHash))!, publicKey };
      const body = canonicalJson(record);
      const entry = entries[i]!;
      return {
        record,
        body,
        extras: extras[i]!,
        ...(entry.remote ? { intentResult: committedIntentItem(deps, entry) } : {}),
      };
    });
    const moved = headAt(sealed.at(-1)!.record);
    // The lease is given up with a batch only when nothing is left for a later one, leaving the head it commits.
    const releasing = later.length === 0 ? release?.(moved) : undefined;
    const outcome = await commitResolvingDoubt(deps, head, sealed, releasing);
    switch (outcome.kind) {
      case 'committed':
        // A committed position's chain hash never comes back: only the appends left for later reuse signatures.
        // (The lane's map would otherwise keep one per record for as long as every batch leaves some for later.)
        for (const s of sealed) signatures.delete(signatureKey(s.record.chainHash));
        return {
          head: moved,
          later,
          committed: sealed.map((s, i) => ({ record: s.record, body: s.body, local: entries[i]!.local })),
          released: releasing !== undefined,
        };
      case 'lease-lost':
        // It ran out and another instance took it: commit without the release (the head condition still
        // decides), the same positions, so the signatures are reused.
        logger.warn('Sequencer lease lost before its release; committing without it', {
          firmId: entries[0]!.firmId,
        });
        release = undefined;
        break;
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
  return { head, later, committed: [], released: false };
}

/**
 * commitBatch, and when the table does not answer (a timeout, a lost connection: the transaction may or may not
 * have been applied), finds out instead of failing the batch: an append whose commit succeeded is never answered
 * with an error (issue 32). The first sealed position says it: its row holding this batch's first record means the
 * batch committed (one transaction: all or nothing); it is read, too, whenever the commit reports a lost race, as
 * the SDK's own retry of an applied attempt would. Otherwise the very same transaction is sent again: its
 * conditions (the head where it was, every position free) let it apply at most once, so a doubtful attempt applied
 * late fails them and a second one cannot double it. Gives up (throws the error) after REQUEST_BUDGET_MS without an
 * answer from the table; only then may a batch be both committed and answered 503 (docs/operations.md, "Faults").
 */
async function commitResolvingDoubt(
  deps: Deps,
  head: ChainHead,
  sealed: readonly SealedAppend[],
  release: TransactItem | undefined,
): Promise<Awaited<ReturnType<typeof commitBatch>>> {
  const first = sealed[0]!.record;
  const committedHere = async () =>
    (await getRecordBySequence(deps, first.firmId, first.sequenceNumber))?.id === first.id;
  const deadline = Date.now() + dependencyBudgets().requestBudgetMs;
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await commitBatch(deps, head, sealed, release);
      if (outcome.kind === 'committed') return outcome;
      // Not only after our own doubt: the SDK retries a transaction whose answer was lost (a connection reset as
      // the table went away) by itself, and a retry of an applied attempt fails the conditions that attempt used.
      return (await committedHere()) ? { kind: 'committed' } : outcome;
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      logger.warn('A batch commit went unanswered; finding out whether it was applied', {
        firmId: first.firmId,
        sequenceNumber: first.sequenceNumber,
      });
      try {
        if (await committedHere()) return { kind: 'committed' };
      } catch (readError) {
        if (!isUnavailable(readError)) throw readError;
      }
      if (Date.now() > deadline) throw error;
      await sleep(Math.min(1_000, 50 * 2 ** attempt));
    }
  }
}

/**
 * Which appends would fail their own conditions now, by index, with the index of the failing extra write, given
 * each append's condition checks (conditionChecks): one transaction of them, which writes nothing. Appends of one
 * batch never share an item, so each is judged alone.
 */
async function refusedBeforeSigning(
  deps: Deps,
  perAppend: readonly ReturnType<typeof conditionChecks>[],
): Promise<Map<number, number>> {
  const checks = perAppend.flatMap((appendChecks, index) => appendChecks.map((c) => ({ index, ...c })));
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

/**
 * Checks the own conditions of this process's appends while the lease is being taken (the same one transaction
 * of condition checks a batch makes after placement), so a lone writer's batch goes from the head read straight
 * to signing. Appends whose conditions name their record's timestamp are left to the batch (the value is only
 * known once placed), and so is any append touching an item an earlier one touches (checkableTogether). Returns the appends refused, each settled with its failed write; the others are marked.
 */
export async function checkAhead(deps: Deps, locals: readonly LocalAppend[]): Promise<Set<LocalAppend>> {
  const withChecks = locals.map((local) => ({
    local,
    checks: conditionChecks(local.append.extras, local.append.unchecked),
  }));
  const timeless = withChecks.filter(({ local, checks }) => !holdsTimestampToken(local.append, checks));
  // One transaction may not touch an item twice: appends sharing an item are left to the batches.
  const checkable = new Set(checkableTogether(timeless.map(({ local }) => local.append)));
  const eligible = timeless.filter(({ local }) => checkable.has(local.append));
  const refused = await refusedBeforeSigning(
    deps,
    eligible.map(({ checks }) => checks),
  );
  for (const [index, failedItem] of refused) eligible[index]!.local.settle({ status: 'failed', failedItem });
  for (const [index, { local }] of eligible.entries()) if (!refused.has(index)) local.checkedAhead = true;
  return new Set([...refused.keys()].map((index) => eligible[index]!.local));
}

async function settleFailed(deps: Deps, entry: Candidate, failedItem: number): Promise<void> {
  if (entry.local) entry.local.settle({ status: 'failed', failedItem });
  else await failIntent(deps, entry, failedItem, deps.clock.now().toISOString());
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
