/**
 * A firm's cap on ledger-writing requests in flight at once (docs/architecture.md §5, "Fair per-firm limits"),
 * beside its token bucket (./token-bucket.ts): Stripe's "concurrent requests limiter". The bucket bounds how
 * many requests a firm makes per second; the cap bounds how many run at the same moment, so an admitted burst is
 * served a few at a time instead of all at once, and one firm cannot hold the account's Lambda concurrency, its
 * ledger's sequencer or the machine's cores while another firm's writes wait.
 *
 * The cap's state is one lease per slot, `concurrency` slots numbered from 0, each the instant (microseconds
 * since the epoch) its holder's lease ends, or absent when free. A request takes a free slot (absent, or its
 * lease already ended: a holder that crashed gives its slot back when the lease runs out) and frees it with its
 * first ledger append, or else once its answer is built. The lease outlasts any request (API Gateway answers
 * within 30 s), so a live holder never loses its slot. Pure arithmetic; the store keeps the leases on the
 * bucket's item (shared/store/rate-limit-store.ts).
 */

/** The leases as last seen, by slot number; a slot missing or undefined is free. */
export type SlotLeases = readonly (number | undefined)[];

/** The lowest-numbered slot free at `now` (no lease, or one that has ended), or undefined when all are held. */
export function freeSlot(concurrency: number, leases: SlotLeases, now: number): number | undefined {
  for (let slot = 0; slot < concurrency; slot++) {
    const lease = leases[slot];
    if (lease === undefined || lease <= now) return slot;
  }
  return undefined;
}
