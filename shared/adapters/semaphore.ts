/** A counting semaphore with a FIFO of waiters; a waiter may give up at a deadline. */
export class Semaphore {
  private available: number;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly permits: number) {
    if (!Number.isInteger(permits) || permits < 1) throw new RangeError('permits must be a positive integer');
    this.available = permits;
  }

  /** Takes a permit, waiting in line; answers false (holding nothing) if none came within `timeoutMs`. */
  acquire(timeoutMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    if (this.available > 0) {
      this.available -= 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = () => {
        if (timer) clearTimeout(timer);
        resolve(true);
      };
      const timer = Number.isFinite(timeoutMs)
        ? setTimeout(
            () => {
              const index = this.waiters.indexOf(grant);
              if (index >= 0) this.waiters.splice(index, 1);
              resolve(false);
            },
            Math.max(0, timeoutMs),
          )
        : undefined;
      this.waiters.push(grant);
    });
  }

  /** Hands the permit to the longest waiter, or returns it. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.available += 1;
  }
}
