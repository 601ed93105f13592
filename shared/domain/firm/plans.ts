/** A firm's plan (spec, Firm): the ledger only, principal review only, or both. */
export const PLANS = ['LEDGER', 'PRINCIPAL', 'BOTH'] as const;
export type Plan = (typeof PLANS)[number];

/** Whether the plan includes human review of advice documents (uploads and review jobs). */
export function includesReview(plan: string): boolean {
  return plan === 'PRINCIPAL' || plan === 'BOTH';
}
