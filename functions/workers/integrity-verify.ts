import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import '../../shared/runtime/aws-deps.js';
import { getDeps } from '../../shared/runtime/deps.js';
import { logger } from '../../shared/runtime/logger.js';
import {
  continueVerification,
  type ContinueMessage,
} from '../../shared/services/integrity/verification-runs.js';

/** Work per delivery, well inside the function's timeout; an unfinished run re-queues itself. */
const BUDGET_MS = 90_000;

/** Consumes the integrity-verify queue: continues each verification run from its saved cursor. */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const deps = getDeps();
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await continueVerification(deps, JSON.parse(record.body) as ContinueMessage, BUDGET_MS);
    } catch (error) {
      logger.error('Continuing a verification failed', {
        messageId: record.messageId,
        error: error as Error,
      });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
