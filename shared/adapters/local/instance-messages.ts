import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
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

/**
 * An isolate's heap as V8 reports it (bytes): what a soak reads to tell a leak (used, after the GCs, keeps
 * growing) from V8 sizing its heap (total and the young generation grow, used does not). Sent with an answer at
 * most once a second.
 */
export interface IsolateHeap {
  at: number;
  used: number;
  total: number;
  /** The young generation's reserved size (new_space): grows under load, shrinks only when V8 reduces memory. */
  newSpace: number;
  oldSpaceUsed: number;
  external: number;
  malloced: number;
  /** Contexts V8 could not free: anything above 0 is a leak of its own. */
  detachedContexts: number;
}

export type FromInstance =
  | { kind: 'ready' }
  | { kind: 'result'; id: number; value: unknown; heap?: IsolateHeap }
  | { kind: 'failed'; id: number; error: SerializedError; heap?: IsolateHeap }
  /** A `queue.send` made inside the instance, for the main thread's queue (body: the message as JSON). */
  | { kind: 'queue-send'; id: number; queue: QueueName; body: string; delaySeconds: number };

/** This isolate's heap now (shared/adapters/local/lambda-instance.ts and the main thread, bin/local.ts). */
export function isolateHeap(): IsolateHeap {
  const heap = getHeapStatistics();
  const spaces = getHeapSpaceStatistics();
  const space = (name: string) => spaces.find((s) => s.space_name === name);
  return {
    at: Date.now(),
    used: heap.used_heap_size,
    total: heap.total_heap_size,
    newSpace: space('new_space')?.space_size ?? 0,
    oldSpaceUsed: space('old_space')?.space_used_size ?? 0,
    external: heap.external_memory,
    malloced: heap.malloced_memory,
    detachedContexts: heap.number_of_detached_contexts,
  };
}

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
