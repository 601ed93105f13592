/**
 * The embedded stack's fault switch (issue 32): `POST /__local/faults` makes one in-process dependency (the signer,
 * the object store or the queue) fail or stall for a while, `DELETE /__local/faults` clears every fault. It lives in
 * shared memory the main thread creates, like the signer's quota (./signer-quota.ts), so a fault applies to every
 * Lambda-like instance at once. The adapters consult it through ./faulty-adapters.ts. Never in AWS.
 *
 * Layout (BigInt64Array): per dependency, its mode (0 none, 1 fail, 2 stall) and the epoch millisecond its fault
 * ends; then a counter of faulted calls, which picks which of a service's errors a failed call raises.
 */
export const FAULTY_DEPENDENCIES = ['signer', 'objects', 'queue'] as const;
export type FaultyDependency = (typeof FAULTY_DEPENDENCIES)[number];
export const FAULT_MODES = ['fail', 'stall'] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

const MODE = 0;
const UNTIL = 1;
const PER_DEPENDENCY = 2;
const CALLS = FAULTY_DEPENDENCIES.length * PER_DEPENDENCY;
const SLOTS = CALLS + 1;
/** The longest fault one request may set (ms): a rehearsal, not a way to break a stack for good. */
export const MAX_FAULT_MS = 600_000;

export interface ActiveFault {
  mode: FaultMode;
  /** When it ends, epoch ms. */
  until: number;
}

export class FaultSwitch {
  private readonly cells: BigInt64Array;

  private constructor(readonly buffer: SharedArrayBuffer) {
    this.cells = new BigInt64Array(buffer);
  }

  static create(): FaultSwitch {
    return new FaultSwitch(new SharedArrayBuffer(SLOTS * BigInt64Array.BYTES_PER_ELEMENT));
  }

  /** The switch another thread created (its `buffer`, passed in workerData). */
  static attach(buffer: SharedArrayBuffer): FaultSwitch {
    return new FaultSwitch(buffer);
  }

  /** Makes `dependency` fail or stall from now for `forMs` milliseconds (replacing its current fault). */
  set(dependency: FaultyDependency, mode: FaultMode, forMs: number, now = Date.now()): void {
    const base = FAULTY_DEPENDENCIES.indexOf(dependency) * PER_DEPENDENCY;
    // The end first, then the mode: a reader that sees the new mode sees its end.
    Atomics.store(this.cells, base + UNTIL, BigInt(Math.floor(now + forMs)));
    Atomics.store(this.cells, base + MODE, BigInt(FAULT_MODES.indexOf(mode) + 1));
  }

  /** Clears every fault. */
  clear(): void {
    for (let i = 0; i < FAULTY_DEPENDENCIES.length; i++)
      Atomics.store(this.cells, i * PER_DEPENDENCY + MODE, 0n);
  }

  /** The fault `dependency` is under now, if any. */
  active(dependency: FaultyDependency, now = Date.now()): ActiveFault | undefined {
    const base = FAULTY_DEPENDENCIES.indexOf(dependency) * PER_DEPENDENCY;
    const mode = Number(Atomics.load(this.cells, base + MODE));
    const until = Number(Atomics.load(this.cells, base + UNTIL));
    if (mode === 0 || until <= now) return undefined;
    return { mode: FAULT_MODES[mode - 1]!, until };
  }

  /** Every fault in force, by dependency (GET /__local/faults). */
  snapshot(now = Date.now()): Partial<Record<FaultyDependency, ActiveFault>> {
    const faults: Partial<Record<FaultyDependency, ActiveFault>> = {};
    for (const dependency of FAULTY_DEPENDENCIES) {
      const fault = this.active(dependency, now);
      if (fault) faults[dependency] = fault;
    }
    return faults;
  }

  /** Counts a faulted call; returns how many came before it (which error a failed call raises). */
  countCall(): number {
    return Number(Atomics.add(this.cells, CALLS, 1n));
  }
}

/** A fault request's body, checked: `{"dependency", "mode", "forMs"}`; a message says what is wrong. */
export function parseFaultRequest(
  body: unknown,
): { dependency: FaultyDependency; mode: FaultMode; forMs: number } | { error: string } {
  if (typeof body !== 'object' || body === null) return { error: 'The body must be a JSON object' };
  const { dependency, mode, forMs } = body as Record<string, unknown>;
  if (!FAULTY_DEPENDENCIES.includes(dependency as FaultyDependency))
    return { error: `dependency must be one of ${FAULTY_DEPENDENCIES.join(', ')}` };
  if (!FAULT_MODES.includes(mode as FaultMode))
    return { error: `mode must be one of ${FAULT_MODES.join(', ')}` };
  if (typeof forMs !== 'number' || !Number.isInteger(forMs) || forMs < 1 || forMs > MAX_FAULT_MS)
    return { error: `forMs must be an integer from 1 to ${MAX_FAULT_MS}` };
  return { dependency: dependency as FaultyDependency, mode: mode as FaultMode, forMs };
}
