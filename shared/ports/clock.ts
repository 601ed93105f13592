/** Time source. Domain and services take it from the context so tests and the local stack can control it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 UTC with milliseconds, the only timestamp format of the interface. */
export function isoNow(clock: Clock): string {
  return clock.now().toISOString();
}
