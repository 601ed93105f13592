import { archivePending, type ArchiveMessage } from '../../shared/services/outbox.js';
import { queueWorker } from '../../shared/workers/handler.js';

/**
 * Consumes the ledger-archive queue: writes each record's canonical bytes to the immutable store and clears
 * its outbox entry. Failures are reported per message (a copy not confirmed yet is one), so SQS retries only
 * those and dead-letters them after maxReceiveCount.
 */
export const handler = queueWorker<ArchiveMessage>(archivePending, {
  failureLog: 'Archiving a ledger record failed',
});
