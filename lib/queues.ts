import { Duration } from 'aws-cdk-lib';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { QueueName } from '../shared/ports/queue.js';
import { QUEUE_URL_ENV } from '../shared/runtime/config.js';
import type { WorkerDef } from '../shared/workers/table.js';

export interface WorkQueue {
  queue: Queue;
  deadLetterQueue: Queue;
}

export interface WorkQueuesProps {
  /** Each queue-triggered worker gets its queue; the worker's trigger decides the queue's settings. */
  workers: readonly WorkerDef[];
}

/**
 * The SQS work queues, each with its own dead-letter queue. A message that fails maxReceiveCount times
 * waits in the dead-letter queue for 14 days (the SQS maximum) for an operator to redrive it.
 */
export class WorkQueues extends Construct {
  private readonly queues = new Map<QueueName, WorkQueue>();

  constructor(scope: Construct, id: string, props: WorkQueuesProps) {
    super(scope, id);
    for (const worker of props.workers) {
      const { trigger } = worker;
      if (trigger.kind !== 'queue') continue;
      if (this.queues.has(trigger.queue))
        throw new Error(`Queue ${trigger.queue} has more than one consumer (${worker.name})`);
      // While one consumer runs, SQS must not hand the same message to another.
      if (trigger.visibilityTimeoutSeconds < worker.timeoutSeconds)
        throw new Error(
          `Worker ${worker.name}: queue visibility timeout ${trigger.visibilityTimeoutSeconds}s is shorter than its timeout ${worker.timeoutSeconds}s`,
        );
      const secure = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true };
      const deadLetterQueue = new Queue(this, `${pascal(trigger.queue)}DeadLetterQueue`, {
        ...secure,
        retentionPeriod: Duration.days(14),
      });
      const queue = new Queue(this, `${pascal(trigger.queue)}Queue`, {
        ...secure,
        visibilityTimeout: Duration.seconds(trigger.visibilityTimeoutSeconds),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: trigger.maxReceiveCount },
      });
      this.queues.set(trigger.queue, { queue, deadLetterQueue });
    }
  }

  /** Every queue with its dead-letter queue (monitoring alarms on each dead-letter queue). */
  all(): [QueueName, WorkQueue][] {
    return [...this.queues.entries()];
  }

  get(name: QueueName): WorkQueue {
    const found = this.queues.get(name);
    if (!found) throw new Error(`No worker consumes queue ${name}: add one to shared/workers/table.ts`);
    return found;
  }

  grantSend(fn: LambdaFunction, name: QueueName): Grant {
    const { queue } = this.get(name);
    fn.addEnvironment(QUEUE_URL_ENV[name], queue.queueUrl);
    // SendMessage alone: the URL comes from the environment, so no GetQueueUrl or GetQueueAttributes.
    return Grant.addToPrincipal({
      grantee: fn,
      actions: ['sqs:SendMessage'],
      resourceArns: [queue.queueArn],
    });
  }
}

/** `ledger-archive` → `LedgerArchive`, for construct ids. */
export function pascal(name: string): string {
  return name
    .split(/[^a-zA-Z0-9]+/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
