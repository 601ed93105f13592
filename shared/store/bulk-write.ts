import type { Deps } from '../runtime/deps.js';
import { send } from './dynamo.js';

/** BatchWriteItem's limit: 25 requests per call. */
export const BATCH_SIZE = 25;

export interface BulkWriterOptions {
  /** Batches in flight at once (default 8). */
  width?: number;
  /** First backoff before resending unprocessed items, doubled per attempt up to 2 s (default 25 ms). */
  baseDelayMs?: number;
}

/**
 * Unconditional bulk puts through BatchWriteItem, for seeding (ledgerctl seed, benches): items are queued with
 * `put`, sent 25 per call with `width` calls in flight, and UnprocessedItems are resent with exponential
 * backoff and jitter. `flush` waits for everything queued; the first failure is thrown there (and by later
 * `put`s). Counts the items written and the calls made.
 */
export class BulkWriter {
  items = 0;
  /** Items written per table name. */
  readonly written: Record<string, number> = {};
  calls = 0;
  retries = 0;
  private readonly queue: { table: string; item: Record<string, unknown> }[] = [];
  private readonly width: number;
  private readonly baseDelayMs: number;
  private lanes = 0;
  private failure: unknown;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly deps: Deps,
    options: BulkWriterOptions = {},
  ) {
    this.width = Math.max(1, options.width ?? 8);
    this.baseDelayMs = options.baseDelayMs ?? 25;
  }

  /** Queues items for `table`; resolves once the queue is short enough again (back-pressure). */
  async put(table: string, items: readonly Record<string, unknown>[]): Promise<void> {
    if (this.failure) throw this.failure;
    for (const item of items) this.queue.push({ table, item });
    while (this.lanes < this.width && this.queue.length >= BATCH_SIZE) this.startLane();
    // At most a few rounds of batches wait, so a producer does not run far ahead of the writes.
    while (this.queue.length > this.width * BATCH_SIZE * 4 && !this.failure) await this.progress();
    if (this.failure) throw this.failure;
  }

  /** Sends whatever is queued and waits for every batch in flight. */
  async flush(): Promise<void> {
    while ((this.queue.length > 0 || this.lanes > 0) && !this.failure) {
      while (this.lanes < this.width && this.queue.length > 0) this.startLane();
      await this.progress();
    }
    if (this.failure) throw this.failure;
  }

  /** Resolves when a batch finishes (called only while a lane runs). */
  private progress(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private startLane(): void {
    this.lanes++;
    void this.lane().finally(() => {
      this.lanes--;
      this.notify();
    });
  }

  private async lane(): Promise<void> {
    try {
      while (this.queue.length > 0 && !this.failure) {
        await this.send(this.queue.splice(0, BATCH_SIZE));
        this.notify();
      }
    } catch (error) {
      this.failure ??= error;
    }
  }

  private async send(batch: { table: string; item: Record<string, unknown> }[]): Promise<void> {
    let requests: Record<string, Record<string, unknown>[]> = {};
    for (const { table, item } of batch) (requests[table] ??= []).push({ PutRequest: { Item: item } });
    for (let attempt = 0; ; attempt++) {
      this.calls++;
      const result = await send(this.deps.db, 'BatchWrite', { RequestItems: requests as never });
      const unprocessed = (result.UnprocessedItems ?? {}) as Record<string, Record<string, unknown>[]>;
      const left = Object.values(unprocessed).reduce((n, list) => n + list.length, 0);
      for (const [table, list] of Object.entries(requests)) {
        const done = list.length - (unprocessed[table]?.length ?? 0);
        this.written[table] = (this.written[table] ?? 0) + done;
        this.items += done;
      }
      if (left === 0) return;
      this.retries++;
      requests = unprocessed;
      const ceiling = Math.min(2_000, this.baseDelayMs * 2 ** attempt);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
    }
  }
}
