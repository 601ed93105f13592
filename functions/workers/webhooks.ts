import { handleWebhookMessage, type WebhookQueueMessage } from '../../shared/services/webhook-delivery.js';
import { queueWorker } from '../../shared/workers/handler.js';

/**
 * Consumes the webhooks queue: committed records (fanned out to one delivery per subscribed active endpoint)
 * and delivery attempts, all of a batch at once. A receiver's failure is not a message failure: the attempt
 * is recorded and the next one queued with its backoff delay. Only a failure of our own (DynamoDB, SQS)
 * fails the message, which SQS then retries and finally dead-letters.
 */
export const handler = queueWorker<WebhookQueueMessage>(handleWebhookMessage, {
  failureLog: 'Webhook queue message failed',
  concurrent: true,
});
