/**
 * The reports log: which report a firm generated, for which period, when and by whom. Rules here: the closed
 * set of report types and the normalisation of the period bounds.
 */

/**
 * One type per report the service produces, plus the Consumer Duty annual board report (PRIN 2A.8) that
 * firms assemble from them. Closed: an unknown type is 400.
 */
export const REPORT_TYPES = [
  'CONSUMER_DUTY',
  'CONSUMER_DUTY_BOARD',
  'BIAS',
  'VULNERABILITY',
  'MODEL_REGISTRY',
  'MODEL_DRIFT',
  'INCIDENTS',
  'IMPACT_ASSESSMENTS',
  'EXPLAINABILITY',
  'LEDGER_INTEGRITY',
] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A period bound as stored: UTC with milliseconds. A date-only `from` is the start of that UTC day and a
 * date-only `to` its last millisecond (23:59:59.999), so a period of whole days is inclusive at both ends;
 * a date-time is converted to UTC. Returns null for a value that is neither.
 */
export function normalisePeriodBound(value: string, bound: 'from' | 'to'): string | null {
  if (DATE_ONLY.test(value)) {
    const start = new Date(`${value}T00:00:00.000Z`);
    // Date accepts 2025-02-30 as 2 March; a real date survives the round trip.
    if (Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== value) return null;
    return bound === 'from' ? start.toISOString() : new Date(start.getTime() + 86_400_000 - 1).toISOString();
  }
  const instant = Date.parse(value);
  return Number.isNaN(instant) ? null : new Date(instant).toISOString();
}
