import type {
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import '../runtime/aws-deps.js';
import { getDeps, type Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';

/**
 * Handles one queue message (its JSON body, parsed). Resolving is success; throwing, or resolving `false`
 * (the work is not done yet and the message must come again), fails that message alone.
 */
export type ProcessMessage<M> = (deps: Deps, message: M) => Promise<boolean | void>;

export interface QueueWorkerOptions {
  /** Logged, with the message id and the error, when a message throws, e.g. "Issuing a certificate failed". */
  failureLog: string;
  /** Run the batch's messages at once instead of one after another (each bounded by its own timeouts). */
  concurrent?: boolean;
}

/**
 * The one entry point of every SQS-triggered worker (shared/workers/table.ts): runs each message of the batch
 * and answers with SQS's partial-batch response, so SQS deletes the messages that succeeded and redelivers
 * only the failed ones, which after maxReceiveCount wait in the dead-letter queue. The event source mapping
 * reports batch item failures (lib/workers.ts); the embedded stack's queue reads the same response
 * (shared/adapters/local/local-queue.ts).
 */
export function queueWorker<M>(
  process: ProcessMessage<M>,
  options: QueueWorkerOptions,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return async (event) => {
    const deps = getDeps();
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    const run = async (record: SQSRecord) => {
      try {
        if ((await process(deps, JSON.parse(record.body) as M)) === false)
          failures.push({ itemIdentifier: record.messageId });
      } catch (error) {
        logger.error(options.failureLog, { messageId: record.messageId, error: error as Error });
        failures.push({ itemIdentifier: record.messageId });
      }
    };
    if (options.concurrent) await Promise.all(event.Records.map(run));
    else for (const record of event.Records) await run(record);
    return { batchItemFailures: failures };
  };
}

/**
 * The one entry point of every scheduled worker (EventBridge in AWS, a timer in the embedded stack): runs
 * `run` with the dependencies; a throw fails the invocation (EventBridge retries it, the local timer logs it).
 */
export function scheduledWorker<R>(run: (deps: Deps) => Promise<R>): () => Promise<R> {
  return () => run(getDeps());
}

/** Handles one change of a DynamoDB stream (its record: event name, keys, images as the table's stream view has them). */
export type ProcessChange = (deps: Deps, change: DynamoDBRecord) => Promise<void>;

/**
 * The one entry point of every stream-triggered worker (shared/workers/table.ts, `stream`): runs the batch's
 * changes in stream order and, at the first that throws, stops and answers with it as the failed item (the
 * partial batch response for streams): the event source mapping retries from that change on (splitting the
 * batch on error), so no later change of the shard overtakes it. The embedded stack's stream poller reads the
 * same response (shared/adapters/local/stream-poller.ts).
 */
export function streamWorker(
  process: ProcessChange,
  options: { failureLog: string },
): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  return async (event) => {
    const deps = getDeps();
    for (const record of event.Records) {
      try {
        await process(deps, record);
      } catch (error) {
        const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
        logger.error(options.failureLog, { sequenceNumber, error: error as Error });
        return { batchItemFailures: [{ itemIdentifier: sequenceNumber }] };
      }
    }
    return { batchItemFailures: [] };
  };
}
