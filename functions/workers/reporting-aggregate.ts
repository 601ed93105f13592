import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import '../../shared/runtime/aws-deps.js';
import type { RecordMessage } from '../../shared/ledger-writer/dispatch.js';
import { getDeps } from '../../shared/runtime/deps.js';
import { logger } from '../../shared/runtime/logger.js';
import { aggregateOutcomeRecord } from '../../shared/services/reporting.js';

/**
 * Consumes the reporting queue (outcome records dispatched by shared/ledger-writer/dispatch.ts): adds each
 * completed job to its firm's per-day aggregates. Idempotent, so SQS redeliveries and outbox re-dispatches
 * are harmless; failures are reported per message and retried, then dead-lettered.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const deps = getDeps();
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await aggregateOutcomeRecord(deps, JSON.parse(record.body) as RecordMessage);
    } catch (error) {
      logger.error('Aggregating an outcome record failed', {
        messageId: record.messageId,
        error: error as Error,
      });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
