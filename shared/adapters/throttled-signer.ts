import { ServiceUnavailableError } from '../errors.js';
import type { Signer } from '../ports/signer.js';
import { Semaphore } from './semaphore.js';

/** Where Sign calls are counted (CloudWatch through EMF in AWS; the local signer counts its own). */
export interface SignMetrics {
  signed(): void;
  throttled(): void;
}

export interface ThrottledSignerOptions {
  /** Sign calls this instance has in flight at most (SIGNER_MAX_IN_FLIGHT); the rest wait in line. */
  maxInFlight: number;
  /** How long one sign may take, waiting and retrying included, before it answers 503 (SIGNER_DEADLINE_MS). */
  deadlineMs: number;
  /** First backoff ceiling; it doubles per throttled attempt up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Retry-After of the 503. */
  retryAfterSeconds?: number;
  metrics?: SignMetrics;
  random?: () => number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** KMS's answer beyond the account's request quota (a 400 the caller should retry later). */
export function isThrottling(error: unknown): boolean {
  return error instanceof Error && error.name === 'ThrottlingException';
}

/**
 * The Signer every composition root hands out: wraps KMS (or the local signer that behaves like it), so that one
 * instance never floods the account's shared Sign quota and a throttled Sign does not become a 500.
 *
 * - At most `maxInFlight` calls run at once per instance; the others wait in line (FIFO).
 * - A ThrottlingException is retried with full-jitter exponential backoff (a random wait between 0 and
 *   min(maxDelayMs, baseDelayMs x 2^attempt)) while the deadline allows.
 * - Past the deadline, waiting or retrying, the call throws ServiceUnavailableError: the request answers 503
 *   with Retry-After, and the caller commits nothing with a missing signature.
 * - Other errors pass through unchanged. KMS's transient faults (KMSInternalException, DependencyTimeoutException,
 *   network errors) are retried by the AWS SDK's standard retry strategy inside each attempt; retrying them here
 *   as well would multiply attempts and hide an outage behind the deadline. The bounded signer this one wraps
 *   (shared/adapters/bounded-dependencies.ts, issue 32) turns them, a disabled key and a stalled call into
 *   DependencyUnavailableError: 503 with Retry-After.
 */
export class ThrottledSigner implements Signer {
  private readonly inFlight: Semaphore;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly retryAfterSeconds: number;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly inner: Signer,
    private readonly options: ThrottledSignerOptions,
  ) {
    this.inFlight = new Semaphore(options.maxInFlight);
    this.baseDelayMs = options.baseDelayMs ?? 20;
    this.maxDelayMs = options.maxDelayMs ?? 1_000;
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  get keyId(): string {
    return this.inner.keyId;
  }

  publicKeySpki(): Promise<Uint8Array> {
    return this.inner.publicKeySpki();
  }

  async sign(message: Uint8Array): Promise<Uint8Array> {
    const deadline = this.now() + this.options.deadlineMs;
    if (!(await this.inFlight.acquire(this.options.deadlineMs)))
      throw this.unavailable('Too many signatures are waiting; retry the request');
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const signature = await this.inner.sign(message);
          this.options.metrics?.signed();
          return signature;
        } catch (error) {
          if (!isThrottling(error)) throw error;
          this.options.metrics?.throttled();
          const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** attempt);
          const delay = this.random() * ceiling;
          if (this.now() + delay >= deadline)
            throw this.unavailable('Signing is throttled; retry the request');
          await this.sleep(delay);
        }
      }
    } finally {
      this.inFlight.release();
    }
  }

  private unavailable(message: string): ServiceUnavailableError {
    return new ServiceUnavailableError(message, this.retryAfterSeconds);
  }
}
