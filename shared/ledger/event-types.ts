/** The closed set of ledger event types (additions only, never renames) and their webhook names. */
export const LEDGER_EVENT_TYPES = [
  'GENERATION_RECORDED',
  'DOCUMENT_SUBMITTED',
  'REVIEW_STARTED',
  'REVIEW_COMPLETED',
  'DOCUMENT_APPROVED',
  'DOCUMENT_MODIFIED',
  'DOCUMENT_REJECTED',
  'CERTIFICATE_ISSUED',
  'CHAIN_VERIFIED',
  'CHAIN_REPAIRED',
  'SLA_BREACHED',
  'JOB_ESCALATED',
  'IMPACT_ASSESSMENT_APPROVED',
  'INCIDENT_LOGGED',
  'INCIDENT_RESOLVED',
  'ASSURANCE_REVIEW_SIGNED',
  'FIRM_SETTINGS_UPDATED',
  // Issue 15: precedes a firm's first record under a new signing key; no webhook name.
  'SIGNING_KEY_ROTATED',
  // Issue 31: a witness refused a checkpoint of the firm's verifiable log (422, a bad consistency proof).
  'LOG_WITNESS_REFUSED',
] as const;

export type LedgerEventType = (typeof LEDGER_EVENT_TYPES)[number];

export const WEBHOOK_EVENT_NAMES = {
  DOCUMENT_SUBMITTED: 'job.submitted',
  REVIEW_STARTED: 'review.started',
  REVIEW_COMPLETED: 'review.completed',
  DOCUMENT_APPROVED: 'document.approved',
  DOCUMENT_MODIFIED: 'document.modified',
  DOCUMENT_REJECTED: 'document.rejected',
  CHAIN_REPAIRED: 'chain.repaired',
  SLA_BREACHED: 'sla.breached',
  IMPACT_ASSESSMENT_APPROVED: 'impact-assessment.approved',
  INCIDENT_LOGGED: 'incident.logged',
  INCIDENT_RESOLVED: 'incident.resolved',
  FIRM_SETTINGS_UPDATED: 'firm-settings.updated',
  LOG_WITNESS_REFUSED: 'log.witness-refused',
} as const satisfies Partial<Record<LedgerEventType, string>>;

/** The events that complete a review job (one per job). */
export const OUTCOME_EVENT_TYPES: readonly LedgerEventType[] = [
  'DOCUMENT_APPROVED',
  'DOCUMENT_MODIFIED',
  'DOCUMENT_REJECTED',
];
