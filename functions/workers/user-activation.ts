import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import '../../shared/runtime/aws-deps.js';
import { getDeps } from '../../shared/runtime/deps.js';
import { logger } from '../../shared/runtime/logger.js';
import { activateFromToken, type ActivationMessage } from '../../shared/services/auth.js';

/**
 * Consumes the user-activation queue: links a user's first sign-in (activatedAt, subject) that a read-only
 * route queued, after verifying the token again. The one function granted those writes. Idempotent (an
 * already linked user is left as is); a token that no longer verifies is dropped, other failures retried.
 * The message carries a bearer token: never log it.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const deps = getDeps();
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const linked = await activateFromToken(deps, JSON.parse(record.body) as ActivationMessage);
      if (!linked) logger.warn('A queued first sign-in no longer verifies', { messageId: record.messageId });
    } catch (error) {
      logger.error('Linking a first sign-in failed', { messageId: record.messageId, error: error as Error });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
