import { AsyncResource } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { checkedDelay, type Queue, type QueueName, type SendOptions } from '../../ports/queue.js';

export type QueueWorker = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface LocalQueueOptions {
  /** Deliveries before a message moves to the dead-letter list (SQS maxReceiveCount). */
  maxReceiveCount?: number;
  /** Delay before the n-th retry: base * 2^(n-1) milliseconds, like a growing visibility timeout. */
  retryBaseMs?: number;
  /**
   * Dead letters kept in memory, the newest; older ones are dropped and counted (a long-running stack whose
   * worker keeps failing must not grow by every message). @default 1000
   */
  maxDeadLetters?: number;
}

/** What the queue holds now (GET /__local/memory): messages waiting out a delay or a retry, deliveries running. */
export interface LocalQueueStats {
  waiting: number;
  inFlight: number;
  deadLetters: number;
  deadLettersDropped: number;
}

export interface DeadLetter {
  queue: QueueName;
  messageId: string;
  body: string;
  receiveCount: number;
  lastError: string;
}

interface Pending {
  messageId: string;
  body: string;
  sentAt: number;
  receiveCount: number;
}

/**
 * In-process stand-in for SQS + Lambda event source mappings. Each message is handed to the queue's worker
 * as a one-record SQS event; a throw or a batchItemFailures entry is a failed receive, retried with growing
 * delay until maxReceiveCount, then kept in a dead-letter list. Messages live in memory: work that must
 * survive a crash is also recorded durably by its producer (see the ledger outbox).
 */
export class LocalQueue implements Queue {
  private readonly workers = new Map<QueueName, QueueWorker>();
  private readonly deadLetters: DeadLetter[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly maxReceiveCount: number;
  private readonly retryBaseMs: number;
  private readonly maxDeadLetters: number;
  private deadLettersDropped = 0;
  private closed = false;
  /**
   * Deliveries run in the queue's own async context, not the sender's: an SQS consumer shares nothing with the
   * request that sent its message (e.g. that request's Idempotency-Key claim, shared/store/idempotency-context.ts).
   */
  private readonly detached = new AsyncResource('LocalQueue');

  constructor(options: LocalQueueOptions = {}) {
    this.maxReceiveCount = options.maxReceiveCount ?? 5;
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.maxDeadLetters = Math.max(1, options.maxDeadLetters ?? 1000);
  }

  register(queue: QueueName, worker: QueueWorker): void {
    this.workers.set(queue, worker);
  }

  async send(queue: QueueName, message: unknown, options?: SendOptions): Promise<void> {
    const delaySeconds = checkedDelay(options);
    if (this.closed) throw new Error('Queue is closed');
    const pending: Pending = {
      messageId: randomUUID(),
      body: JSON.stringify(message),
      sentAt: Date.now(),
      receiveCount: 0,
    };
    this.schedule(queue, pending, delaySeconds * 1000);
  }

  deadLetterList(): readonly DeadLetter[] {
    return this.deadLetters;
  }

  stats(): LocalQueueStats {
    return {
      waiting: this.timers.size,
      inFlight: this.inFlight.size,
      deadLetters: this.deadLetters.length,
      deadLettersDropped: this.deadLettersDropped,
    };
  }

  /** Resolves when nothing is in flight or waiting for a retry. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0 || this.timers.size > 0) {
      await Promise.race([...this.inFlight, new Promise((resolve) => setTimeout(resolve, 20))]);
    }
  }

  /** Stops accepting work, cancels pending retries and waits for deliveries in flight. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(queue: QueueName, pending: Pending, delayMs: number): void {
    const timer = setTimeout(
      () =>
        this.detached.runInAsyncScope(() => {
          this.timers.delete(timer);
          if (this.closed) return;
          const delivery = this.deliver(queue, pending).finally(() => this.inFlight.delete(delivery));
          this.inFlight.add(delivery);
        }),
      delayMs,
    );
    this.timers.add(timer);
  }

  private async deliver(queue: QueueName, pending: Pending): Promise<void> {
    const worker = this.workers.get(queue);
    pending.receiveCount += 1;
    let failure: string | undefined;
    if (!worker) {
      failure = `No worker registered for queue ${queue}`;
    } else {
      try {
        const response = await worker({ Records: [toSqsRecord(queue, pending)] }, lambdaContext(queue));
        if (response?.batchItemFailures.some((f) => f.itemIdentifier === pending.messageId)) {
          failure = 'Reported as a batch item failure';
        }
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
    }
    if (failure === undefined) return;
    if (pending.receiveCount >= this.maxReceiveCount) {
      this.deadLetters.push({
        queue,
        messageId: pending.messageId,
        body: pending.body,
        receiveCount: pending.receiveCount,
        lastError: failure,
      });
      if (this.deadLetters.length > this.maxDeadLetters) {
        this.deadLetters.splice(0, this.deadLetters.length - this.maxDeadLetters);
        this.deadLettersDropped += 1;
      }
      return;
    }
    this.schedule(queue, pending, this.retryBaseMs * 2 ** (pending.receiveCount - 1));
  }
}

function toSqsRecord(queue: QueueName, pending: Pending): SQSRecord {
  return {
    messageId: pending.messageId,
    receiptHandle: `${pending.messageId}:${pending.receiveCount}`,
    body: pending.body,
    attributes: {
      ApproximateReceiveCount: String(pending.receiveCount),
      SentTimestamp: String(pending.sentAt),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(pending.body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:local:000000000000:${queue}`,
    awsRegion: 'local',
  };
}

export function lambdaContext(name: string): Context {
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/local/${name}`,
    logStreamName: requestId,
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
