import { jest } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsObjectStore } from '../../../shared/adapters/local/fs-object-store.js';
import { LocalSigner } from '../../../shared/adapters/local/local-signer.js';
import type { Principal } from '../../../shared/domain/auth/principal.js';
import { DependencyUnavailableError } from '../../../shared/errors.js';
import type { Queue, QueueName } from '../../../shared/ports/queue.js';
import type { Deps } from '../../../shared/runtime/deps.js';
import { logger, VERIFICATION_FAILED_LOG, VERIFICATION_STUCK_LOG } from '../../../shared/runtime/logger.js';
import {
  continueVerification,
  startVerification,
  type ContinueMessage,
} from '../../../shared/services/integrity/verification-runs.js';
import { findVerification } from '../../../shared/services/integrity/verification-status.js';
import {
  sweepStaleVerifications,
  VERIFY_REQUEUED_LOG,
  VERIFY_STALE_MS,
  VERIFY_STUCK_REQUEUES,
} from '../../../shared/services/integrity/verification-sweep.js';
import { indexAttributesOf } from '../../../shared/store/index-backfill.js';
import { getRun, saveProgress } from '../../../shared/store/integrity-store.js';
import { keys } from '../../../shared/store/keys.js';
import { readHead } from '../../../shared/store/ledger-store.js';
import { chainOf } from '../../support/chain-of.js';
import { memoryStore } from '../../support/memory-store.js';

/**
 * Issue 32, "the queue refusing messages must delay work, never lose it": a verification run whose continuation
 * the queue refused stays RUNNING in the sweep index, and the verification sweep re-queues it once it has made no
 * progress for the stale period; its worker then completes it. The real ledger writer and verifier run on the
 * mocked store answered by in-memory tables (test/support/memory-store.ts), the local signer and object store.
 */

/** A queue that records what it was sent, or refuses every send as SQS does in an outage (`refusing`). */
class RecordingQueue implements Queue {
  refusing = false;
  readonly sent: { queue: QueueName; message: unknown }[] = [];

  async send(queue: QueueName, message: unknown): Promise<void> {
    if (this.refusing) throw new DependencyUnavailableError('queue', 2);
    this.sent.push({ queue, message });
  }

  /** The continuations sent so far, taken off the queue. */
  takeContinuations(): ContinueMessage[] {
    const taken = this.sent.filter((s) => s.queue === 'integrity-verify').map((s) => s.message);
    this.sent.splice(0, this.sent.length, ...this.sent.filter((s) => s.queue !== 'integrity-verify'));
    return taken as ContinueMessage[];
  }
}

const firmId = 'firm_sweep';
const principal: Principal = { kind: 'apiKey', firmId, keyId: 'key_1', name: 'ops' };
const WORKER_BUDGET_MS = 90_000;

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'gls-verify-sweep-'));
  const signer = new LocalSigner(join(dir, 'signing-key.pem'));
  const queue = new RecordingQueue();
  let now = Date.parse('2026-03-02T09:00:00.000Z');
  const clock = { now: () => new Date(now) };
  const store = memoryStore({
    signer,
    signerFor: () => signer,
    objects: new FsObjectStore(join(dir, 'objects')),
    queue,
    clock,
  } as Partial<Deps>);
  return {
    ...store,
    queue,
    advance: (ms: number) => void (now += ms),
    runItem: (id: string) => store.item('main', keys.verification(firmId, id)),
  };
}

/** Verification of a 5-record chain checking 2 inline: the rest must continue on the queue. */
const limits = { inlineMaxRecords: 2, budgetMs: 20_000 };

describe('verification runs whose continuation the queue refused', () => {
  it('answers the run RUNNING (not an error), and the sweep re-queues it after the stale period; it then completes', async () => {
    const { deps, queue, advance, runItem } = setUp();
    await chainOf(deps, firmId, 5);

    queue.refusing = true;
    const started = await startVerification(deps, principal, limits);
    expect(started.verification).toMatchObject({
      status: 'RUNNING',
      progress: { checkedThrough: 2, total: 5 },
    });
    expect(started.result).toMatchObject({ complete: false });
    const id = started.verification.id;
    expect(runItem(id)).toMatchObject({
      sweepKind: 'VERIFY',
      sweepDue: expect.stringMatching(/#firm_sweep#/),
    });
    queue.refusing = false;
    expect(queue.takeContinuations()).toEqual([]);

    // Younger than the stale period: left alone.
    advance(VERIFY_STALE_MS - 60_000);
    expect(await sweepStaleVerifications(deps)).toEqual({ found: 0, requeued: 0, dropped: 0, failed: 0 });
    expect(queue.takeContinuations()).toEqual([]);

    advance(2 * 60_000);
    expect(await sweepStaleVerifications(deps)).toEqual({ found: 1, requeued: 1, dropped: 0, failed: 0 });
    const [message, ...more] = queue.takeContinuations();
    expect(message).toEqual({ firmId, verificationId: id });
    expect(more).toEqual([]);
    expect(runItem(id)).toMatchObject({ status: 'RUNNING', requeues: 1 });
    // Re-queued once per stale period, not once per sweep.
    advance(60_000);
    expect(await sweepStaleVerifications(deps)).toMatchObject({ requeued: 0 });

    await continueVerification(deps, message!, WORKER_BUDGET_MS);
    const { verification, result } = await findVerification(deps, firmId, id);
    expect(verification).toMatchObject({ status: 'COMPLETED', valid: true, recordsChecked: 5 });
    expect(verification.ledgerRecordId).toEqual(expect.stringMatching(/^rec_/));
    expect(result).toMatchObject({ complete: true, valid: true, checkedThrough: 5, brokenCount: 0 });
    expect((await readHead(deps, firmId)).sequenceNumber).toBe(6); // the CHAIN_VERIFIED record
    // Completion took it out of the sweep index: later sweeps never see it again.
    expect(runItem(id)).not.toHaveProperty('sweepKind');
    advance(2 * VERIFY_STALE_MS);
    expect(await sweepStaleVerifications(deps)).toEqual({ found: 0, requeued: 0, dropped: 0, failed: 0 });
  });

  it('re-queues an incremental run and its background full run, neither of which the queue took', async () => {
    const { deps, queue, advance } = setUp();
    await chainOf(deps, firmId, 5);
    // A first, complete verification leaves a checkpoint at 5 (its CHAIN_VERIFIED record is 6).
    const first = await startVerification(deps, principal, { inlineMaxRecords: 100, budgetMs: 20_000 });
    expect(first.verification.status).toBe('COMPLETED');
    await chainOf(deps, firmId, 3);

    queue.refusing = true;
    const { verification } = await startVerification(deps, principal, limits);
    queue.refusing = false;
    expect(verification).toMatchObject({ mode: 'incremental', status: 'RUNNING', fromSequence: 6 });
    const background = verification.backgroundVerificationId!;
    expect((await findVerification(deps, firmId, background)).verification).toMatchObject({
      mode: 'full',
      status: 'RUNNING',
      progress: { checkedThrough: 0 },
    });

    advance(VERIFY_STALE_MS + 60_000);
    expect(await sweepStaleVerifications(deps)).toMatchObject({ found: 2, requeued: 2, failed: 0 });
    const messages = queue.takeContinuations();
    expect(messages.map((m) => m.verificationId).sort()).toEqual([verification.id, background].sort());
    for (const message of messages) await continueVerification(deps, message, WORKER_BUDGET_MS);
    for (const id of [verification.id, background])
      expect((await findVerification(deps, firmId, id)).verification).toMatchObject({
        status: 'COMPLETED',
        valid: true,
      });
  });

  it('throws from the worker when its own re-queue is refused, and the sweep takes over once redeliveries ran out', async () => {
    const { deps, queue, advance, put } = setUp();
    // A chain longer than one worker chunk (rows absent: each is MISSING_RECORD, which checks as fast as any).
    put('ledger', {
      ...keys.ledgerHead(firmId),
      sequenceNumber: 1500,
      chainHash: 'ab'.repeat(32),
      timestamp: null,
    });
    queue.refusing = true;
    const { verification } = await startVerification(deps, principal, {
      inlineMaxRecords: 1,
      budgetMs: 20_000,
    });

    // A delivery whose time is up after one chunk saves it and cannot hand the rest on: it throws, so queueWorker
    // fails the message (shared/workers/handler.ts) and the queue brings it back (SQS after the visibility timeout,
    // the local queue after its backoff), to resume from the saved cursor.
    const message = { firmId, verificationId: verification.id };
    await expect(continueVerification(deps, message, 0)).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect((await findVerification(deps, firmId, verification.id)).verification).toMatchObject({
      status: 'RUNNING',
      progress: { checkedThrough: 1001 },
    });

    // The outage outlasted every redelivery (the message is dead-lettered): the sweep re-queues the run.
    queue.refusing = false;
    advance(VERIFY_STALE_MS + 60_000);
    expect(await sweepStaleVerifications(deps)).toMatchObject({ requeued: 1 });
    const [requeued] = queue.takeContinuations();
    expect(requeued).toEqual(message);
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    try {
      await continueVerification(deps, requeued!, WORKER_BUDGET_MS);
      expect(error).toHaveBeenCalledWith(
        VERIFICATION_FAILED_LOG,
        expect.objectContaining({ brokenCount: 1500 }),
      );
    } finally {
      error.mockRestore();
    }
    expect((await findVerification(deps, firmId, verification.id)).verification).toMatchObject({
      status: 'COMPLETED',
      valid: false,
      progress: { checkedThrough: 1500 },
      brokenCount: 1500,
    });
  });

  it('leaves a run alone that saved progress recently, however long ago it started', async () => {
    const { deps, queue, advance, runItem } = setUp();
    await chainOf(deps, firmId, 5);
    queue.refusing = true;
    const { verification } = await startVerification(deps, principal, {
      inlineMaxRecords: 1,
      budgetMs: 20_000,
    });
    queue.refusing = false;

    // Its worker is slow but alive: it saves a chunk's progress an hour after the start, a minute before the sweep.
    advance(60 * 60_000);
    const run = (await getRun(deps, firmId, verification.id))!;
    const cursor = { ...run.cursor, nextSequence: run.cursor.nextSequence + 1 };
    expect(await saveProgress(deps, run, run.cursor, cursor, [], deps.clock.now().toISOString())).toBe(true);
    advance(60_000);

    expect(await sweepStaleVerifications(deps)).toEqual({ found: 0, requeued: 0, dropped: 0, failed: 0 });
    expect(queue.takeContinuations()).toEqual([]);
    expect(runItem(verification.id)).not.toHaveProperty('requeues');
  });

  it('keeps a run for the next sweep when the queue refuses the re-queue too', async () => {
    const { deps, queue, advance } = setUp();
    await chainOf(deps, firmId, 3);
    queue.refusing = true;
    const { verification } = await startVerification(deps, principal, {
      inlineMaxRecords: 1,
      budgetMs: 20_000,
    });

    advance(VERIFY_STALE_MS + 60_000);
    expect(await sweepStaleVerifications(deps)).toEqual({ found: 1, requeued: 0, dropped: 0, failed: 1 });
    queue.refusing = false;
    advance(60_000);
    expect(await sweepStaleVerifications(deps)).toEqual({ found: 1, requeued: 1, dropped: 0, failed: 0 });
    expect(queue.takeContinuations()).toEqual([{ firmId, verificationId: verification.id }]);
  });

  it('alarms on a run whose re-queues keep failing from the third on, and keeps re-queuing it', async () => {
    const { deps, queue, advance, runItem } = setUp();
    await chainOf(deps, firmId, 3);
    queue.refusing = true;
    const { verification } = await startVerification(deps, principal, {
      inlineMaxRecords: 1,
      budgetMs: 20_000,
    });
    queue.refusing = false;
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    try {
      // Every delivery is lost (the worker never saves progress): one re-queue per stale period.
      for (let requeues = 1; requeues <= VERIFY_STUCK_REQUEUES + 1; requeues++) {
        advance(VERIFY_STALE_MS + 60_000);
        expect(await sweepStaleVerifications(deps)).toMatchObject({ requeued: 1 });
        expect(queue.takeContinuations()).toEqual([{ firmId, verificationId: verification.id }]);
        expect(runItem(verification.id)).toMatchObject({ status: 'RUNNING', requeues });
      }
      const details = expect.objectContaining({ firmId, verificationId: verification.id });
      expect(warn.mock.calls.filter(([m]) => m === VERIFY_REQUEUED_LOG)).toEqual(
        Array.from({ length: VERIFY_STUCK_REQUEUES - 1 }, () => [VERIFY_REQUEUED_LOG, details]),
      );
      expect(error.mock.calls.filter(([m]) => m === VERIFICATION_STUCK_LOG)).toEqual([
        [VERIFICATION_STUCK_LOG, expect.objectContaining({ requeues: VERIFY_STUCK_REQUEUES })],
        [VERIFICATION_STUCK_LOG, expect.objectContaining({ requeues: VERIFY_STUCK_REQUEUES + 1 })],
      ]);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });

  it('takes a finished run out of the index instead of re-queuing it', async () => {
    const { deps, queue, advance, put, runItem } = setUp();
    // A completed run still carrying an entry (the index backfill raced its completion).
    put('main', {
      ...keys.verification(firmId, 'ver_done'),
      id: 'ver_done',
      firmId,
      status: 'COMPLETED',
      updatedAt: '2026-03-02T08:00:00.000Z',
      sweepKind: 'VERIFY',
      sweepDue: `2026-03-02T08:00:00.000Z#${firmId}#ver_done`,
    });
    advance(VERIFY_STALE_MS);
    expect(await sweepStaleVerifications(deps)).toEqual({ found: 1, requeued: 0, dropped: 1, failed: 0 });
    expect(queue.takeContinuations()).toEqual([]);
    expect(runItem('ver_done')).not.toHaveProperty('sweepKind');
  });
});

describe('ledgerctl backfill indexes and verification runs', () => {
  const run = (fields: Record<string, unknown>) => ({
    ...keys.verification(firmId, 'ver_1'),
    id: 'ver_1',
    firmId,
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  });

  it('gives a running run written before the sweep index its entry, by its last progress', () => {
    expect(indexAttributesOf('main', run({ status: 'RUNNING' }))).toEqual({
      sweepKind: 'VERIFY',
      sweepDue: `2026-01-01T00:00:00.000Z#${firmId}#ver_1`,
    });
  });

  it('keeps an entry a re-queue moved, and gives a finished run none', () => {
    const moved = { sweepKind: 'VERIFY', sweepDue: `2026-01-01T00:10:00.000Z#${firmId}#ver_1` };
    expect(indexAttributesOf('main', run({ status: 'RUNNING', ...moved }))).toEqual(moved);
    expect(indexAttributesOf('main', run({ status: 'COMPLETED' }))).toBeNull();
  });
});
