/**
 * Work queues. In AWS each is an SQS queue with a dead-letter queue feeding a Lambda worker; locally an
 * in-process queue with the same retry and dead-letter semantics delivers SQS-shaped events to the same worker.
 */
export type QueueName = 'ledger-archive' | 'integrity-verify' | 'certificates';

export interface Queue {
  send(queue: QueueName, message: unknown): Promise<void>;
}
