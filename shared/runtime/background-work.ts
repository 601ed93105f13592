/**
 * Work a process goes on with after it has answered: the ledger writer's lane (the rest of a batch after its
 * callers settled, the lease's release), a batch's immutable copies and outbox clean-up, the log trigger's
 * message. Nothing waits for it on the request path (a Lambda frozen meanwhile leaves it to the repair sweeps).
 * Tracked here so that whoever ends the process on purpose can let it finish first: the test files that run the
 * ledger writer in their own process wait for it after their last test (test/support/settle-background.ts), so
 * none of it outlives the file that started it.
 */
const running = new Set<Promise<unknown>>();

/** Runs `work` beside the caller, tracked until it settles; its failure is its own to report. */
export function inBackground(work: Promise<unknown>): void {
  running.add(work);
  work.then(
    () => running.delete(work),
    () => running.delete(work),
  );
}

/**
 * Resolves once no tracked work is running, including work that the work in flight starts meanwhile, or after
 * `withinMs`, whichever comes first: work that waits on something that never answers (a frozen process, as tests
 * simulate one) is left to it.
 */
export async function backgroundSettled(withinMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const givenUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)));
  try {
    while (running.size > 0) {
      const settled = await Promise.race([
        Promise.allSettled([...running]).then(() => true),
        givenUp.then(() => false),
      ]);
      if (!settled) return;
    }
  } finally {
    clearTimeout(timer);
  }
}
