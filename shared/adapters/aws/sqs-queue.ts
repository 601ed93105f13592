import type { SQSClient } from '@aws-sdk/client-sqs';
import { checkedDelay, type Queue, type QueueName, type SendOptions } from '../../ports/queue.js';
import { lazyClient, type ClientSource } from './lazy-sdk.js';

/** Sends JSON messages to the SQS queue that `urlOf` names for each logical queue. */
export class SqsQueue implements Queue {
  private readonly client: () => Promise<SQSClient>;

  constructor(
    client: ClientSource<SQSClient>,
    private readonly urlOf: (queue: QueueName) => string,
  ) {
    this.client = lazyClient(client);
  }

  async send(queue: QueueName, message: unknown, options?: SendOptions): Promise<void> {
    const delay = checkedDelay(options);
    const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
    await (
      await this.client()
    ).send(
      new SendMessageCommand({
        QueueUrl: this.urlOf(queue),
        MessageBody: JSON.stringify(message),
        ...(delay > 0 ? { DelaySeconds: delay } : {}),
      }),
    );
  }
}
