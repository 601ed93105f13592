import { archiveRecord } from '../ledger-writer/archive.js';
import type { LedgerRecord } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { getOutbox, listPendingOutbox } from '../store/ledger-outbox-store.js';

/** An outbox entry younger than this is probably still being archived by the request that wrote it. */
export const OUTBOX_GRACE_MS = 30_000;
const SWEEP_BATCH = 500;

export interface ArchiveMessage {
  firmId: string;
  sequenceNumber: number;
}

/**
 * Finds records committed to DynamoDB whose immutable copy was never confirmed (the writer died or the
 * store failed) and queues each for the archive worker. Returns how many were queued.
 */
export async function sweepOutbox(deps: Deps, graceMs = OUTBOX_GRACE_MS): Promise<number> {
  const olderThan = new Date(deps.clock.now().getTime() - graceMs).toISOString();
  // One batch per sweep: anything beyond it is picked up by the next sweep, once the worker cleared these.
  const pending = await listPendingOutbox(deps, olderThan, SWEEP_BATCH);
  await Promise.all(
    pending.map((entry) =>
      deps.queue.send('ledger-archive', {
        firmId: entry.firmId,
        sequenceNumber: entry.sequenceNumber,
      } satisfies ArchiveMessage),
    ),
  );
  return pending.length;
}

/** Archives one outbox entry; true when done (or already done), false to retry later. */
export async function archivePending(deps: Deps, message: ArchiveMessage): Promise<boolean> {
  const entry = await getOutbox(deps, message.firmId, message.sequenceNumber);
  if (!entry) return true;
  const { id, eventType } = JSON.parse(entry.body) as Pick<LedgerRecord, 'id' | 'eventType'>;
  return archiveRecord(
    deps,
    { firmId: entry.firmId, sequenceNumber: entry.sequenceNumber, id, eventType },
    entry.body,
  );
}
