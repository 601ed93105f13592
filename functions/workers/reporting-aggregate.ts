import type { RecordMessage } from '../../shared/ledger-writer/dispatch.js';
import { aggregateOutcomeRecord } from '../../shared/services/reporting.js';
import { queueWorker } from '../../shared/workers/handler.js';

/**
 * Consumes the reporting queue (outcome records dispatched by shared/ledger-writer/dispatch.ts): adds each
 * completed job to its firm's per-day aggregates. Idempotent, so SQS redeliveries and outbox re-dispatches
 * are harmless; failures are reported per message and retried, then dead-lettered.
 */
export const handler = queueWorker<RecordMessage>(
  async (deps, message) => {
    await aggregateOutcomeRecord(deps, message);
  },
  { failureLog: 'Aggregating an outcome record failed' },
);
