import type { Plan } from '../firm/plans.js';
import type { WritePolicy } from './token-bucket.js';

/**
 * Ledger-writing requests per firm by plan, in AWS (docs/architecture.md §5, "Fair per-firm limits"). Every such
 * request spends one KMS Sign from the account's 300 ECC signatures/s shared by all firms, and one firm's ledger
 * partition holds about 50 appends/s: 20/s sustained keeps one firm well inside both, so one firm's burst leaves
 * the quota to the others (15 firms at their full rate before KMS binds). A principal-only firm writes human-paced
 * review moves, so it gets half. The burst covers a client's batch after a pause (two seconds' worth).
 */
export const PLAN_WRITE_LIMITS: Readonly<Record<Plan, WritePolicy>> = {
  LEDGER: { ratePerSecond: 20, burst: 40 },
  BOTH: { ratePerSecond: 20, burst: 40 },
  PRINCIPAL: { ratePerSecond: 10, burst: 20 },
};
