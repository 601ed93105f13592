import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Queue, QueueName } from '../../ports/queue.js';

/** Sends JSON messages to the SQS queue configured for each logical queue name. */
export class SqsQueue implements Queue {
  constructor(
    private readonly client: SQSClient,
    private readonly urls: Record<QueueName, string>,
  ) {}

  async send(queue: QueueName, message: unknown): Promise<void> {
    await this.client.send(
      new SendMessageCommand({ QueueUrl: this.urls[queue], MessageBody: JSON.stringify(message) }),
    );
  }
}
