/**
 * Work queues. In AWS each is an SQS queue with a dead-letter queue feeding a Lambda worker; locally an
 * in-process queue with the same retry and dead-letter semantics delivers SQS-shaped events to the same worker.
 */
export type QueueName =
  | 'ledger-archive'
  | 'integrity-verify'
  | 'reporting'
  | 'webhooks'
  | 'certificates'
  | 'user-activation'
  | 'log-checkpoint'
  | 'log-witness';

/** SQS's longest per-message delay (DelaySeconds). */
export const MAX_DELAY_SECONDS = 900;

export interface SendOptions {
  /**
   * Hide the message from consumers for this many whole seconds (0 to MAX_DELAY_SECONDS), e.g. a retry's
   * backoff: SQS retries a failed receive only after the queue's fixed visibility timeout.
   */
  delaySeconds?: number;
}

export interface Queue {
  send(queue: QueueName, message: unknown, options?: SendOptions): Promise<void>;
}

/** The delay to pass on, refusing what SQS would refuse rather than silently shortening a backoff. */
export function checkedDelay(options: SendOptions | undefined): number {
  const delay = options?.delaySeconds ?? 0;
  if (!Number.isInteger(delay) || delay < 0 || delay > MAX_DELAY_SECONDS)
    throw new RangeError(`delaySeconds must be an integer from 0 to ${MAX_DELAY_SECONDS}, got ${delay}`);
  return delay;
}
