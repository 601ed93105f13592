import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';
import type { QueueName } from '../../ports/queue.js';
import { logger } from '../../runtime/logger.js';
import { FairQueue } from './fair-queue.js';
import { startTypeScriptWorker } from './typescript-worker.js';
import { invocationLane } from './invocation-lane.js';
import {
  deserializeError,
  serializeError,
  type FromInstance,
  type InstanceData,
  type IsolateHeap,
  type ToInstance,
} from './instance-messages.js';

/** Where an instance's queue sends go (the main thread's LocalQueue). */
export type QueueSink = (queue: QueueName, message: unknown, delaySeconds: number) => Promise<void>;

export interface Invocation {
  value: unknown;
  /** Index of the instance that ran it. */
  instance: number;
  /** How long it ran on the instance, ms (Lambda's duration: without the wait for a free instance). */
  runMs: number;
}

/**
 * What an instance runs: route invocations (API Gateway's) or worker invocations (queues, streams, schedules).
 * In AWS they are different functions, each with its own execution environments: a worker never takes an
 * environment a request could have used, nor the reverse.
 */
export type InstanceKind = 'route' | 'worker';

/** An invocation waiting for a free instance of its kind. */
interface Waiter {
  take: (instance: Instance) => void;
  fail: (error: Error) => void;
}

interface Instance {
  index: number;
  kind: InstanceKind;
  worker: Worker;
  ready: boolean;
  /** Taken for an invocation: one at a time, like a Lambda execution environment. */
  busy: boolean;
  /** The invocation it is running. */
  running?: { id: number; resolve: (value: unknown) => void; reject: (error: Error) => void };
  /** Its isolate's heap as last reported with an answer (at most once a second). */
  heap?: IsolateHeap;
}

/** The pool now (GET /__local/memory): invocations waiting for an instance, instances busy, each one's heap. */
export interface InstancePoolStats {
  waiting: Record<InstanceKind, number>;
  busy: number;
  instances: { index: number; kind: InstanceKind; heap: IsolateHeap | null }[];
}

// The instances run the TypeScript sources, as the main thread does under tsx (./typescript-worker.ts).
const ENTRY = new URL('./lambda-instance.ts', import.meta.url).href;

/**
 * Each instance's young generation is its full size from the start (semi-spaces of 16 MiB, V8's default maximum
 * on 64-bit): a Lambda execution environment's memory is fixed when it starts. Left to grow, V8 widens the
 * semi-spaces over the first ten minutes or so of steady load, about 15 MiB an instance, which a soak reads as
 * the stack's memory growing (docs/benchmarks.md, Soak). V8's flags are the process's; an isolate reads this one
 * when it is created, so it applies to every instance started after it.
 */
const INSTANCE_SEMI_SPACE_MB = 16;
setFlagsFromString(`--min-semi-space-size=${INSTANCE_SEMI_SPACE_MB}`);

/**
 * The embedded stack's Lambda-like concurrency: worker threads, each an isolated instance with its own module
 * state and connections (shared/adapters/local/lambda-instance.ts): LOCAL_INSTANCES of them, which run every
 * invocation, or (LOCAL_WORKER_INSTANCES > 0) which run the routes while that many more run the workers (queue,
 * stream and schedule invocations), as route and worker functions scale apart in AWS: a worker waiting out its
 * interval then never holds an instance a request could use (bench/log and bench/append run so; opt-in for now, see
 * docs/architecture.md §2). An invocation goes to a free instance of its kind; when all are busy it waits in its
 * lane (invocation-lane.ts: its credential, or its worker function), and a freed instance goes to its kind's lanes
 * in turn (fair-queue.ts), so one caller's burst cannot queue everyone else's requests behind it: in AWS, Lambda
 * would scale out instead. Instances are numbered routes first (0 … LOCAL_INSTANCES − 1), then workers. An instance that
 * dies fails its invocation and is replaced, as Lambda replaces a crashed execution environment.
 */
export class InstancePool {
  private readonly instances: Instance[] = [];
  private readonly waiting: Record<InstanceKind, FairQueue<Waiter>> = {
    route: new FairQueue(),
    worker: new FairQueue(),
  };
  readonly size: number;
  private readonly gate: Int32Array | undefined;
  private nextId = 1;
  private closed = false;

  /** `freeze`: instances stop between invocations, as Lambda freezes them (see lambda-instance.ts). */
  constructor(
    private readonly sizes: Readonly<Record<InstanceKind, number>>,
    private readonly data: Omit<InstanceData, 'index' | 'freezeGate'>,
    private readonly sink: QueueSink,
    options: { freeze?: boolean } = {},
  ) {
    if (sizes.route < 1 || sizes.worker < 0) throw new Error('An instance pool needs route instances');
    this.size = sizes.route + sizes.worker;
    if (options.freeze) this.gate = new Int32Array(new SharedArrayBuffer(4 * this.size));
  }

  /** Starts every instance; resolves once all are ready to take invocations. */
  async start(): Promise<void> {
    await Promise.all(Array.from({ length: this.size }, (_, index) => this.spawn(index)));
  }

  /** Runs `module`'s handler on the next free instance of `kind` (of any, when workers have none of their own). */
  async invoke(module: string, name: string, event: unknown, kind: InstanceKind): Promise<Invocation> {
    const instance = await this.take(this.sizes.worker === 0 ? 'route' : kind, invocationLane(name, event));
    const id = this.nextId++;
    const started = Date.now();
    try {
      const value = await new Promise<unknown>((resolve, reject) => {
        instance.running = { id, resolve, reject };
        this.thaw(instance.index);
        instance.worker.postMessage({ kind: 'invoke', id, module, name, event } satisfies ToInstance);
      });
      return { value, instance: instance.index, runMs: Date.now() - started };
    } finally {
      instance.running = undefined;
      this.give(instance);
    }
  }

  stats(): InstancePoolStats {
    return {
      waiting: { route: this.waiting.route.size, worker: this.waiting.worker.size },
      busy: this.instances.filter((instance) => instance.busy).length,
      instances: this.instances.map(({ index, kind, heap }) => ({ index, kind, heap: heap ?? null })),
    };
  }

  /** Terminates every instance; invocations waiting or running fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const instance of this.instances) this.thaw(instance.index);
    const stopped = new Error('The local stack is shutting down');
    for (const instance of this.instances) instance.running?.reject(stopped);
    for (const waiter of [...this.waiting.route.drain(), ...this.waiting.worker.drain()])
      waiter.fail(stopped);
    await Promise.all(this.instances.map((instance) => instance.worker.terminate()));
  }

  /** Lets a frozen instance run again (it reads its next message). */
  private thaw(index: number): void {
    if (!this.gate) return;
    Atomics.add(this.gate, index, 1);
    Atomics.notify(this.gate, index);
  }

  private take(kind: InstanceKind, lane: string): Promise<Instance> {
    if (this.closed) return Promise.reject(new Error('The local stack is shutting down'));
    const free = this.instances.find(
      (instance) => instance.kind === kind && instance.ready && !instance.busy,
    );
    if (free) {
      free.busy = true;
      return Promise.resolve(free);
    }
    return new Promise((take, fail) => this.waiting[kind].push(lane, { take, fail }));
  }

  /** Hands a free instance to the oldest waiter of its kind's lane whose turn it is, or marks it free. */
  private give(instance: Instance): void {
    if (!instance.ready) return;
    const next = this.waiting[instance.kind].shift();
    instance.busy = next !== undefined;
    next?.take(instance);
  }

  private spawn(index: number): Promise<void> {
    const worker = startTypeScriptWorker(ENTRY, {
      ...this.data,
      index,
      ...(this.gate ? { freezeGate: this.gate.buffer } : {}),
    });
    const kind: InstanceKind = index < this.sizes.route ? 'route' : 'worker';
    const instance: Instance = { index, kind, worker, ready: false, busy: false };
    this.instances[index] = instance;
    return new Promise((started, failed) => {
      worker.on('message', (message: FromInstance) => {
        if (message.kind === 'ready') {
          instance.ready = true;
          started();
          this.give(instance);
        } else if (message.kind === 'queue-send') {
          this.forward(worker, message);
        } else if (instance.running?.id === message.id) {
          if (message.heap) instance.heap = message.heap;
          if (message.kind === 'result') instance.running.resolve(message.value);
          else instance.running.reject(deserializeError(message.error));
        }
      });
      worker.on('error', (error) => {
        logger.error(`Local instance ${index} failed`, { error });
        failed(error);
      });
      worker.on('exit', (code) => {
        const wasReady = instance.ready;
        instance.ready = false;
        instance.running?.reject(new Error(`Local instance ${index} exited with code ${code}`));
        // One that never became ready fails start() instead: restarting it would only fail again.
        if (this.closed || !wasReady) return;
        logger.warn(`Local instance ${index} exited with code ${code}; starting a new one`);
        this.spawn(index).catch((error: unknown) =>
          logger.error(`Local instance ${index} could not be restarted`, { error: error as Error }),
        );
      });
    });
  }

  private forward(worker: Worker, message: Extract<FromInstance, { kind: 'queue-send' }>): void {
    this.sink(message.queue, JSON.parse(message.body), message.delaySeconds).then(
      () => worker.postMessage({ kind: 'queue-sent', id: message.id } satisfies ToInstance),
      (error: unknown) =>
        worker.postMessage({
          kind: 'queue-sent',
          id: message.id,
          error: serializeError(error),
        } satisfies ToInstance),
    );
  }
}
