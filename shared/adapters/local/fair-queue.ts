/**
 * Waiters in lanes, served round-robin: FIFO within a lane, and each `shift` takes from the lane that has waited
 * longest for its turn, then sends that lane to the back. A lane with a thousand waiters and a lane with one
 * are served alternately, so no lane waits behind another's backlog (the local instance pool's dispatch,
 * instance-pool.ts).
 */
export class FairQueue<T> {
  /** Lanes in turn order (a Map keeps insertion order); a lane is removed when it empties. */
  private readonly lanes = new Map<string, T[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(lane: string, item: T): void {
    const waiting = this.lanes.get(lane);
    if (waiting) waiting.push(item);
    else this.lanes.set(lane, [item]);
    this.count++;
  }

  /** The oldest waiter of the lane whose turn it is, or undefined when none waits. */
  shift(): T | undefined {
    const next = this.lanes.entries().next();
    if (next.done) return undefined;
    const [lane, waiting] = next.value;
    const item = waiting.shift()!;
    this.lanes.delete(lane);
    if (waiting.length > 0) this.lanes.set(lane, waiting);
    this.count--;
    return item;
  }

  /** Removes and returns every waiter. */
  drain(): T[] {
    const all = [...this.lanes.values()].flat();
    this.lanes.clear();
    this.count = 0;
    return all;
  }
}
