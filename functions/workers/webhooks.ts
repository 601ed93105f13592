import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import '../../shared/runtime/aws-deps.js';
import { getDeps } from '../../shared/runtime/deps.js';
import { logger } from '../../shared/runtime/logger.js';
import { handleWebhookMessage, type WebhookQueueMessage } from '../../shared/services/webhook-delivery.js';

/**
 * Consumes the webhooks queue: committed records (fanned out to one delivery per subscribed active endpoint)
 * and delivery attempts. A receiver's failure is not a message failure: the attempt is recorded and the next
 * one queued with its backoff delay. Only a failure of our own (DynamoDB, SQS) fails the message, which SQS
 * then retries and finally dead-letters.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const deps = getDeps();
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        await handleWebhookMessage(deps, JSON.parse(record.body) as WebhookQueueMessage);
      } catch (error) {
        logger.error('Webhook queue message failed', { messageId: record.messageId, error: error as Error });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
};
