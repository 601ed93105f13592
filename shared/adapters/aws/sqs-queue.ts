import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Queue, QueueName } from '../../ports/queue.js';

/** Sends JSON messages to the SQS queue that `urlOf` names for each logical queue. */
export class SqsQueue implements Queue {
  constructor(
    private readonly client: SQSClient,
    private readonly urlOf: (queue: QueueName) => string,
  ) {}

  async send(queue: QueueName, message: unknown): Promise<void> {
    await this.client.send(
      new SendMessageCommand({ QueueUrl: this.urlOf(queue), MessageBody: JSON.stringify(message) }),
    );
  }
}
