import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { checkedDelay, type Queue, type QueueName, type SendOptions } from '../../ports/queue.js';

/** Sends JSON messages to the SQS queue that `urlOf` names for each logical queue. */
export class SqsQueue implements Queue {
  constructor(
    private readonly client: SQSClient,
    private readonly urlOf: (queue: QueueName) => string,
  ) {}

  async send(queue: QueueName, message: unknown, options?: SendOptions): Promise<void> {
    const delay = checkedDelay(options);
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.urlOf(queue),
        MessageBody: JSON.stringify(message),
        ...(delay > 0 ? { DelaySeconds: delay } : {}),
      }),
    );
  }
}
