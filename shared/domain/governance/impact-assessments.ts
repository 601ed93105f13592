/**
 * Impact assessment rules that need no storage: the template (outcome areas and rating scale), the status
 * graph and who may approve. The template is version 1, the only one.
 */
import type { Principal } from '../auth/principal.js';

export const TEMPLATE_VERSION = 1;

/**
 * The four outcome areas are the four outcomes of the FCA Consumer Duty (PRIN 2A.3 to 2A.7): an AI use case in
 * advice is assessed for its effect on each. Vulnerable customers are considered inside every area (FG22/5), not
 * as a fifth one; data protection (UK GDPR DPIA) and model risk are separate regimes with their own records.
 */
export const OUTCOME_AREAS = [
  'productsAndServices',
  'priceAndValue',
  'consumerUnderstanding',
  'consumerSupport',
] as const;
export type OutcomeArea = (typeof OUTCOME_AREAS)[number];

/** Residual risk to consumers in an area, lowest first. LOW is the template default. */
export const RISK_RATINGS = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type RiskRating = (typeof RISK_RATINGS)[number];

export interface OutcomeAssessment {
  response: string;
  riskRating: RiskRating;
}
export type Outcomes = Record<OutcomeArea, OutcomeAssessment>;
export type OutcomesPatch = Partial<Record<OutcomeArea, Partial<OutcomeAssessment>>>;

export const IA_STATUSES = ['DRAFT', 'PENDING_SIGNOFF', 'APPROVED', 'REJECTED', 'SUPERSEDED'] as const;
export type IaStatus = (typeof IA_STATUSES)[number];

/** Outcomes of a new assessment: every area empty and LOW, then what the caller gave. */
export function defaultOutcomes(): Outcomes {
  return Object.fromEntries(
    OUTCOME_AREAS.map((area) => [area, { response: '', riskRating: 'LOW' }]),
  ) as Outcomes;
}

/** Applies a patch area by area, field by field: what the patch leaves out stays as it was. */
export function mergeOutcomes(current: Outcomes, patch: OutcomesPatch | undefined): Outcomes {
  if (!patch) return current;
  const next = { ...current };
  for (const area of OUTCOME_AREAS) {
    const change = patch[area];
    if (change) next[area] = { ...current[area], ...change };
  }
  return next;
}

/**
 * Moves the update endpoint may make (SUPERSEDED is reached only through the supersede endpoint). A
 * PENDING_SIGNOFF assessment can be withdrawn to DRAFT for changes and a REJECTED one reworked as a DRAFT.
 */
export const IA_TRANSITIONS: Readonly<Record<IaStatus, readonly IaStatus[]>> = {
  DRAFT: ['PENDING_SIGNOFF'],
  PENDING_SIGNOFF: ['APPROVED', 'REJECTED', 'DRAFT'],
  REJECTED: ['DRAFT'],
  APPROVED: [],
  SUPERSEDED: [],
};

/** APPROVED and SUPERSEDED assessments are immutable: any edit is a conflict. */
export function isImmutable(status: IaStatus): boolean {
  return status === 'APPROVED' || status === 'SUPERSEDED';
}

/** Whether the update endpoint may move an assessment from `from` to `to` (same status: not a move). */
export function canTransition(from: IaStatus, to: IaStatus): boolean {
  return from === to ? !isImmutable(from) : IA_TRANSITIONS[from].includes(to);
}

/** The supersede endpoint accepts APPROVED only: nothing else counts toward the gate or could be replaced. */
export function canSupersede(status: IaStatus): boolean {
  return status === 'APPROVED';
}

/** Approval needs a signed-in LEAD_REVIEWER or FIRM_ADMIN; an API key acts for the firm, not a senior. */
export function mayApprove(principal: Principal): boolean {
  return principal.kind === 'user' && (principal.role === 'LEAD_REVIEWER' || principal.role === 'FIRM_ADMIN');
}

/** Provider and version tie an assessment to a model only together: both set or both null. */
export function modelPairProblem(provider: string | null, version: string | null): string | null {
  return (provider === null) === (version === null)
    ? null
    : 'modelProvider and modelVersion must be given together (or both null)';
}

/**
 * The approved-assessment index of one model: the APPROVED assessments covering it and when each was
 * approved. The gate reads `assessmentId`, the most recently approved one that is still APPROVED.
 */
export type ApprovedSet = Record<string, string>;

export function withApproval(set: ApprovedSet, assessmentId: string, approvedAt: string): ApprovedSet {
  return { ...set, [assessmentId]: approvedAt };
}

export function withoutApproval(set: ApprovedSet, assessmentId: string): ApprovedSet {
  const next = { ...set };
  delete next[assessmentId];
  return next;
}

/** The most recently approved assessment of the set (ties: the larger id), or null when it is empty. */
export function latestApproval(set: ApprovedSet): string | null {
  let best: [string, string] | null = null;
  for (const [id, at] of Object.entries(set)) {
    if (!best || at > best[1] || (at === best[1] && id > best[0])) best = [id, at];
  }
  return best ? best[0] : null;
}
