/**
 * The local signer's meter, in shared memory so that every instance of the embedded stack (worker threads,
 * shared/adapters/local/lambda-instance.ts) draws on one quota and counts into one place, like KMS's
 * per-account request quota. Created by the main thread; instances attach to its buffer.
 *
 * Layout (BigInt64Array): sign calls served, sign calls throttled, the rate (calls per second, 0 = unlimited),
 * the rate limiter's theoretical arrival time in microseconds (GCRA, the generic cell rate algorithm: a token
 * bucket of one second's worth of calls kept as one number, so a compare-and-swap updates it without a lock), and
 * the checkpoint key's sign calls served (counted in the first slot too).
 */
const SIGNED = 0;
const THROTTLED = 1;
const RATE = 2;
const ARRIVAL = 3;
const NOTE_SIGNED = 4;
const SLOTS = 5;

export interface SignCounts {
  /** Sign calls that produced a signature, with either key. */
  signCalls: number;
  /** Sign calls refused with ThrottlingException. */
  signThrottled: number;
  /**
   * Of signCalls, those of the log's checkpoint key (Ed25519). Each checkpoint is signed once with it and once
   * with the ledger key (shared/services/log-checkpoint.ts), so the records' own Signs are signCalls − 2 × these.
   */
  checkpointSignCalls: number;
}

export class SignerQuota {
  private readonly cells: BigInt64Array;

  private constructor(readonly buffer: SharedArrayBuffer) {
    this.cells = new BigInt64Array(buffer);
  }

  /** A new meter; `ratePerSecond` 0 means no limit. */
  static create(ratePerSecond: number): SignerQuota {
    const quota = new SignerQuota(new SharedArrayBuffer(SLOTS * BigInt64Array.BYTES_PER_ELEMENT));
    Atomics.store(quota.cells, RATE, BigInt(ratePerSecond));
    return quota;
  }

  /** The meter another thread created (its `buffer`, passed in workerData). */
  static attach(buffer: SharedArrayBuffer): SignerQuota {
    return new SignerQuota(buffer);
  }

  get ratePerSecond(): number {
    return Number(Atomics.load(this.cells, RATE));
  }

  /**
   * Takes one call from the quota, or answers false when the last second's calls already reached the rate.
   * Bursts of up to one second's worth of calls pass; beyond that calls pass at the rate.
   */
  tryTake(nowMs = Date.now()): boolean {
    const rate = Atomics.load(this.cells, RATE);
    if (rate <= 0n) return true;
    const interval = 1_000_000n / rate;
    const tolerance = interval * (rate - 1n);
    const now = BigInt(Math.floor(nowMs * 1000));
    for (;;) {
      const arrival = Atomics.load(this.cells, ARRIVAL);
      const base = arrival > now ? arrival : now;
      if (base - now > tolerance) return false;
      if (Atomics.compareExchange(this.cells, ARRIVAL, arrival, base + interval) === arrival) return true;
    }
  }

  /** Counts a Sign served; `checkpointKey` for the log's checkpoint key. */
  countSigned(checkpointKey = false): void {
    Atomics.add(this.cells, SIGNED, 1n);
    if (checkpointKey) Atomics.add(this.cells, NOTE_SIGNED, 1n);
  }

  countThrottled(): void {
    Atomics.add(this.cells, THROTTLED, 1n);
  }

  counts(): SignCounts {
    return {
      signCalls: Number(Atomics.load(this.cells, SIGNED)),
      signThrottled: Number(Atomics.load(this.cells, THROTTLED)),
      checkpointSignCalls: Number(Atomics.load(this.cells, NOTE_SIGNED)),
    };
  }
}
