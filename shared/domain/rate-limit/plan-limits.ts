import type { Plan } from '../firm/plans.js';
import type { WritePolicy } from './token-bucket.js';

/**
 * Ledger-writing requests per firm by plan, in AWS (docs/architecture.md §5, "Fair per-firm limits"). Every such
 * request spends one KMS Sign from the account's 300 ECC signatures/s shared by all firms, and one firm's ledger
 * partition holds about 50 appends/s: 20/s sustained keeps one firm well inside both, so one firm's burst leaves
 * the quota to the others (15 firms at their full rate before KMS binds). A principal-only firm writes human-paced
 * review moves, so it gets half. The burst covers a client's batch after a pause (two seconds' worth). The
 * concurrency cap (./write-slots.ts) serves that batch one request (per 10/s of rate) at a time: an append
 * answers in ~50 ms, so the cap still lets twice the rate through, while one firm's burst never has more than
 * that many appends running beside another firm's (bench/rate-limits: with 2 at a time instead of 1, firm B's
 * p99 under a 10x burst was over its bound in 3 runs of 4; docs/benchmarks-history.md).
 */
export const PLAN_WRITE_LIMITS: Readonly<Record<Plan, WritePolicy>> = {
  LEDGER: { ratePerSecond: 20, burst: 40, concurrency: 2 },
  BOTH: { ratePerSecond: 20, burst: 40, concurrency: 2 },
  PRINCIPAL: { ratePerSecond: 10, burst: 20, concurrency: 1 },
};
