import type {
  BucketName,
  ObjectInfo,
  ObjectStore,
  ObjectStream,
  PresignedGet,
  PresignedPut,
  PresignGetOptions,
  PresignPutOptions,
  StoredObject,
} from '../../ports/object-store.js';
import type { Queue, QueueName, SendOptions } from '../../ports/queue.js';
import type { Signer } from '../../ports/signer.js';
import type { FaultSwitch, FaultyDependency } from './fault-switch.js';

/**
 * The embedded stack's in-process dependencies under the fault switch (./fault-switch.ts): while a dependency's
 * fault is in force, a call either fails at once with an error shaped like the AWS service's own (name, `$fault`,
 * HTTP status), or stalls until the fault ends (a call that outlives its budget is then given up by
 * shared/adapters/bounded-dependencies.ts, which wraps these).
 */

/** An AWS service error as the SDK raises it: its name, who is at fault, the HTTP status. */
export class AwsShapedError extends Error {
  readonly $fault: 'client' | 'server';
  readonly $metadata: { httpStatusCode: number };

  constructor(name: string, status: number, message: string) {
    super(message);
    this.name = name;
    this.$fault = status >= 500 ? 'server' : 'client';
    this.$metadata = { httpStatusCode: status };
  }
}

/** What each service answers when it fails; a failed call raises them in turn. */
const FAILURES: Record<FaultyDependency, readonly (() => AwsShapedError)[]> = {
  signer: [
    () =>
      new AwsShapedError(
        'KMSInternalException',
        500,
        'The request was rejected because an internal exception occurred.',
      ),
    () =>
      new AwsShapedError(
        'DependencyTimeoutException',
        503,
        'The system timed out while trying to fulfill the request.',
      ),
    () => new AwsShapedError('KMSInvalidStateException', 400, 'The key is disabled.'),
  ],
  objects: [
    () => new AwsShapedError('InternalError', 500, 'We encountered an internal error. Please try again.'),
    () => new AwsShapedError('SlowDown', 503, 'Please reduce your request rate.'),
  ],
  queue: [
    () =>
      new AwsShapedError(
        'InternalFailure',
        500,
        'The request processing has failed because of an unknown error.',
      ),
    () =>
      new AwsShapedError(
        'ServiceUnavailable',
        503,
        'The request has failed due to a temporary failure of the server.',
      ),
  ],
};

const STALL_POLL_MS = 25;

/** Runs `call` as `dependency` would under its current fault: fails, stalls first, or runs at once. */
export async function underFault<T>(
  faults: FaultSwitch,
  dependency: FaultyDependency,
  call: () => Promise<T>,
): Promise<T> {
  let fault = faults.active(dependency);
  if (!fault) return call();
  if (fault.mode === 'fail') {
    const choices = FAILURES[dependency];
    throw choices[faults.countCall() % choices.length]!();
  }
  faults.countCall();
  while (fault?.mode === 'stall') {
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(STALL_POLL_MS, fault!.until - Date.now() + 1)),
    );
    fault = faults.active(dependency);
  }
  return underFault(faults, dependency, call);
}

export class FaultySigner implements Signer {
  constructor(
    private readonly inner: Signer,
    private readonly faults: FaultSwitch,
  ) {}

  get keyId(): string {
    return this.inner.keyId;
  }

  sign(message: Uint8Array): Promise<Uint8Array> {
    return underFault(this.faults, 'signer', () => this.inner.sign(message));
  }

  publicKeySpki(): Promise<Uint8Array> {
    return underFault(this.faults, 'signer', () => this.inner.publicKeySpki());
  }
}

export class FaultyObjectStore implements ObjectStore {
  constructor(
    private readonly inner: ObjectStore,
    private readonly faults: FaultSwitch,
  ) {}

  private faulted<T>(call: () => Promise<T>): Promise<T> {
    return underFault(this.faults, 'objects', call);
  }

  put(bucket: BucketName, key: string, body: Uint8Array, contentType: string): Promise<void> {
    return this.faulted(() => this.inner.put(bucket, key, body, contentType));
  }

  get(bucket: BucketName, key: string): Promise<StoredObject | null> {
    return this.faulted(() => this.inner.get(bucket, key));
  }

  head(bucket: BucketName, key: string): Promise<ObjectInfo | null> {
    return this.faulted(() => this.inner.head(bucket, key));
  }

  stream(bucket: BucketName, key: string): Promise<ObjectStream | null> {
    return this.faulted(() => this.inner.stream(bucket, key));
  }

  async *list(bucket: BucketName, prefix: string): AsyncIterable<string> {
    await this.faulted(async () => undefined);
    yield* this.inner.list(bucket, prefix);
  }

  delete(bucket: BucketName, key: string): Promise<void> {
    return this.faulted(() => this.inner.delete(bucket, key));
  }

  // Presigning is local computation in both S3's SDK and here: no fault reaches it.
  presignPut(bucket: BucketName, key: string, options: PresignPutOptions): Promise<PresignedPut> {
    return this.inner.presignPut(bucket, key, options);
  }

  presignGet(bucket: BucketName, key: string, options: PresignGetOptions): Promise<PresignedGet> {
    return this.inner.presignGet(bucket, key, options);
  }
}

export class FaultyQueue implements Queue {
  constructor(
    private readonly inner: Queue,
    private readonly faults: FaultSwitch,
  ) {}

  send(queue: QueueName, message: unknown, options?: SendOptions): Promise<void> {
    return underFault(this.faults, 'queue', () => this.inner.send(queue, message, options));
  }
}
