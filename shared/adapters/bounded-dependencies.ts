import { DependencyUnavailableError, type Dependency } from '../errors.js';
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
} from '../ports/object-store.js';
import type { Queue, QueueName, SendOptions } from '../ports/queue.js';
import type { Signer } from '../ports/signer.js';
import type { DependencyBudgets } from '../runtime/config.js';
import { DEPENDENCY_UNAVAILABLE_LOG, logger } from '../runtime/logger.js';
import type { DocumentDb } from '../store/dynamo.js';
import { isTransientFault } from './transient-faults.js';

/** A call that ran past its budget (it may still finish later; its result is dropped). */
class BudgetExpired extends Error {
  override readonly name = 'BudgetExpired';
}

/** What a bound needs of the budgets: the whole call's budget and the 503's Retry-After. */
export type CallBudget = Pick<DependencyBudgets, 'budgetMs' | 'retryAfterSeconds'>;

/**
 * Runs one dependency call within its budget (issue 32): a call still running after `budgetMs` (the SDK's attempts
 * and backoff included) or failing with a transient fault (shared/adapters/transient-faults.ts) throws
 * DependencyUnavailableError, which the error mapper answers 503 with Retry-After. `keep` names transient errors a
 * caller handles itself (the signer's throttling, which ThrottledSigner retries until its own deadline). A call
 * that outlives its budget is left to finish or fail on its own (its result is dropped): in AWS the SDK's request
 * timeout ends it; a stalled local adapter ends when its stall does.
 */
export async function withinBudget<T>(
  dependency: Dependency,
  budget: CallBudget,
  call: () => Promise<T>,
  keep: (error: unknown) => boolean = () => false,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new BudgetExpired(`${dependency} call still running after ${budget.budgetMs} ms`)),
      budget.budgetMs,
    );
  });
  const running = call();
  try {
    return await Promise.race([running, expired]);
  } catch (error) {
    if (error instanceof DependencyUnavailableError || keep(error)) throw error;
    const timedOut = error instanceof BudgetExpired;
    if (!timedOut && !isTransientFault(error)) throw error;
    if (timedOut) running.catch(() => undefined); // its late failure is nobody's business now
    logger.warn(DEPENDENCY_UNAVAILABLE_LOG, { dependency, error: error as Error });
    throw new DependencyUnavailableError(dependency, budget.retryAfterSeconds, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/** The document client every store uses, each command within the budget. */
export function boundedDb(db: DocumentDb, budget: CallBudget): DocumentDb {
  const send = (command: Parameters<DocumentDb['send']>[0]) =>
    withinBudget('database', budget, () => db.send(command));
  return { send: send as DocumentDb['send'] };
}

/**
 * A signer whose calls are bounded; throttling passes through unchanged for ThrottledSigner (which wraps this one)
 * to retry within its deadline. Inside the throttling wrapper, so a stalled call gives its in-flight slot back.
 */
export class BoundedSigner implements Signer {
  constructor(
    private readonly inner: Signer,
    private readonly budget: CallBudget,
    private readonly keep: (error: unknown) => boolean,
  ) {}

  get keyId(): string {
    return this.inner.keyId;
  }

  sign(message: Uint8Array): Promise<Uint8Array> {
    return withinBudget('signer', this.budget, () => this.inner.sign(message), this.keep);
  }

  publicKeySpki(): Promise<Uint8Array> {
    return withinBudget('signer', this.budget, () => this.inner.publicKeySpki());
  }
}

/** An object store whose calls are bounded (a listing page by page; a stream's body as its SDK reads it). */
export class BoundedObjectStore implements ObjectStore {
  constructor(
    private readonly inner: ObjectStore,
    private readonly budget: CallBudget,
  ) {}

  private bound<T>(call: () => Promise<T>): Promise<T> {
    return withinBudget('objects', this.budget, call);
  }

  put(bucket: BucketName, key: string, body: Uint8Array, contentType: string): Promise<void> {
    return this.bound(() => this.inner.put(bucket, key, body, contentType));
  }

  get(bucket: BucketName, key: string): Promise<StoredObject | null> {
    return this.bound(() => this.inner.get(bucket, key));
  }

  head(bucket: BucketName, key: string): Promise<ObjectInfo | null> {
    return this.bound(() => this.inner.head(bucket, key));
  }

  stream(bucket: BucketName, key: string): Promise<ObjectStream | null> {
    return this.bound(() => this.inner.stream(bucket, key));
  }

  async *list(bucket: BucketName, prefix: string): AsyncIterable<string> {
    const keys = this.inner.list(bucket, prefix)[Symbol.asyncIterator]();
    for (;;) {
      const next = await this.bound(() => keys.next());
      if (next.done) return;
      yield next.value;
    }
  }

  delete(bucket: BucketName, key: string): Promise<void> {
    return this.bound(() => this.inner.delete(bucket, key));
  }

  presignPut(bucket: BucketName, key: string, options: PresignPutOptions): Promise<PresignedPut> {
    return this.bound(() => this.inner.presignPut(bucket, key, options));
  }

  presignGet(bucket: BucketName, key: string, options: PresignGetOptions): Promise<PresignedGet> {
    return this.bound(() => this.inner.presignGet(bucket, key, options));
  }
}

/** A queue whose sends are bounded. */
export class BoundedQueue implements Queue {
  constructor(
    private readonly inner: Queue,
    private readonly budget: CallBudget,
  ) {}

  send(queue: QueueName, message: unknown, options?: SendOptions): Promise<void> {
    return withinBudget('queue', this.budget, () => this.inner.send(queue, message, options));
  }
}
