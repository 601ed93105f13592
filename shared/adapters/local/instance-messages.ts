import type { QueueName } from '../../ports/queue.js';

/**
 * What the embedded stack's main thread and its Lambda-like instances (worker threads) say to each other.
 * Main thread: shared/adapters/local/instance-pool.ts; instance: shared/adapters/local/lambda-instance.ts.
 */

/** workerData of an instance. */
export interface InstanceData {
  index: number;
  /** Repository root: handler modules are `<root>/<module>.ts`. */
  root: string;
  dataDir: string;
  dynamoEndpoint: string;
  baseUrl: string;
  /** The stack's signer quota and Sign counters (shared/adapters/local/signer-quota.ts). */
  signerQuota: SharedArrayBuffer;
  /** The stack's fault switch (shared/adapters/local/fault-switch.ts, POST /__local/faults). */
  faults?: SharedArrayBuffer;
  /** The stack's DynamoDB read meter, when LOCAL_DYNAMO_METRICS is on (shared/adapters/local/dynamo-meter.ts). */
  dynamoMeter?: SharedArrayBuffer;
  /**
   * With LOCAL_FREEZE_BETWEEN_INVOCATIONS: one Int32 per instance, bumped by the main thread before each
   * invocation; an instance that answered blocks on its cell (Atomics.wait) until the next bump, as Lambda
   * freezes an execution environment between invocations.
   */
  freezeGate?: SharedArrayBuffer;
}

/** An error as it crosses the thread boundary. */
export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
}

export type ToInstance =
  /** Run `module`'s handler on `event` (an API Gateway, SQS or schedule event); one at a time per instance. */
  | { kind: 'invoke'; id: number; module: string; name: string; event: unknown }
  /** The answer to a queue-send. */
  | { kind: 'queue-sent'; id: number; error?: SerializedError };

export type FromInstance =
  | { kind: 'ready' }
  | { kind: 'result'; id: number; value: unknown }
  | { kind: 'failed'; id: number; error: SerializedError }
  /** A `queue.send` made inside the instance, for the main thread's queue (body: the message as JSON). */
  | { kind: 'queue-send'; id: number; queue: QueueName; body: string; delaySeconds: number };

export function serializeError(error: unknown): SerializedError {
  return error instanceof Error
    ? { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) }
    : { name: 'Error', message: String(error) };
}

export function deserializeError(error: SerializedError): Error {
  const revived = new Error(error.message);
  revived.name = error.name;
  if (error.stack) revived.stack = error.stack;
  return revived;
}
