/**
 * "Another writer won; read again and decide again": the one retry loop for optimistic concurrency.
 *
 * An attempt reads what it needs, decides, and makes one conditional write. It returns its result, or
 * `LOST_RACE` when the write's condition showed that someone else changed the state in between (nothing was
 * written). Lost attempts are retried after a short random backoff, which grows with the attempt number so
 * that contending writers spread out; after `attempts` lost races the error from `exhausted()` is thrown.
 */
export const LOST_RACE: unique symbol = Symbol('lost race');
export type LostRace = typeof LOST_RACE;

export interface RetryOptions {
  /** How many attempts in all before giving up. */
  attempts: number;
  /** The error thrown when every attempt lost (e.g. a ConflictError asking the client to retry). */
  exhausted: () => Error;
  /** Ceiling of the random backoff between attempts, in ms. @default 200 */
  maxBackoffMs?: number;
}

export async function retryOnLostRace<T>(
  attempt: (attemptNumber: number) => Promise<T | LostRace>,
  { attempts, exhausted, maxBackoffMs = 200 }: RetryOptions,
): Promise<T> {
  for (let n = 1; n <= attempts; n++) {
    const result = await attempt(n);
    if (result !== LOST_RACE) return result;
    if (n < attempts) await backoff(n, maxBackoffMs);
  }
  throw exhausted();
}

/** Full jitter: a random wait up to min(ceiling, 5 ms × 2^attempt). */
function backoff(attempt: number, ceilingMs: number): Promise<void> {
  const ceiling = Math.min(ceilingMs, 5 * 2 ** Math.min(attempt, 10));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}
