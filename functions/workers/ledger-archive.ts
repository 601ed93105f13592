import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import '../../shared/runtime/aws-deps.js';
import { getDeps } from '../../shared/runtime/deps.js';
import { logger } from '../../shared/runtime/logger.js';
import { archivePending, type ArchiveMessage } from '../../shared/services/outbox.js';

/**
 * Consumes the ledger-archive queue: writes each record's canonical bytes to the immutable store and clears
 * its outbox entry. Failures are reported per message, so SQS retries only those and dead-letters them
 * after maxReceiveCount.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const deps = getDeps();
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      if (!(await archivePending(deps, JSON.parse(record.body) as ArchiveMessage))) {
        failures.push({ itemIdentifier: record.messageId });
      }
    } catch (error) {
      logger.error('Archiving a ledger record failed', {
        messageId: record.messageId,
        error: error as Error,
      });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
