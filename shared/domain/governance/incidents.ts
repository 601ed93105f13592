/**
 * Incident rules that need no storage: severities, categories, the status graph, the resolution stamp, the
 * remediation completion stamp and the statistics.
 */

/** Impact on clients, the firm or its regulatory position, lowest first. */
export const INCIDENT_SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];

/**
 * What went wrong, in the terms UK advice firms report in: each category maps to the regime or process that
 * handles it (docs/architecture.md, "Governance: impact assessments, incidents, reports log").
 */
export const INCIDENT_CATEGORIES = [
  'AI_MODEL',
  'BIAS_FAIRNESS',
  'CONSUMER_HARM',
  'VULNERABLE_CUSTOMER',
  'DATA_PROTECTION',
  'SECURITY',
  'OPERATIONAL',
  'THIRD_PARTY',
  'REGULATORY_BREACH',
  'LEDGER_INTEGRITY',
  'OTHER',
] as const;
export type IncidentCategory = (typeof INCIDENT_CATEGORIES)[number];

export const INCIDENT_STATUSES = ['OPEN', 'INVESTIGATING', 'REMEDIATING', 'RESOLVED', 'CLOSED'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

export const INITIAL_INCIDENT_STATUS: IncidentStatus = 'OPEN';

/** Statuses in which an incident is over; moving into one stamps resolvedAt and logs INCIDENT_RESOLVED. */
export const RESOLVED_STATUSES: readonly IncidentStatus[] = ['RESOLVED', 'CLOSED'];
export const OPEN_STATUSES: readonly IncidentStatus[] = ['OPEN', 'INVESTIGATING', 'REMEDIATING'];

export const isResolved = (status: IncidentStatus): boolean => RESOLVED_STATUSES.includes(status);

/**
 * Allowed moves. Work can go back and forth between investigating and remediating; any open status can be
 * resolved or closed outright; RESOLVED can only be CLOSED (the post-incident sign-off) and CLOSED is final.
 * There is no reopening: a recurrence is a new incident, so INCIDENT_RESOLVED is written once per incident.
 */
export const INCIDENT_TRANSITIONS: Readonly<Record<IncidentStatus, readonly IncidentStatus[]>> = {
  OPEN: ['INVESTIGATING', 'REMEDIATING', 'RESOLVED', 'CLOSED'],
  INVESTIGATING: ['REMEDIATING', 'RESOLVED', 'CLOSED'],
  REMEDIATING: ['INVESTIGATING', 'RESOLVED', 'CLOSED'],
  RESOLVED: ['CLOSED'],
  CLOSED: [],
};

/** Whether an incident may move from `from` to `to`; staying in the same status is always allowed. */
export function canMoveIncident(from: IncidentStatus, to: IncidentStatus): boolean {
  return from === to || INCIDENT_TRANSITIONS[from].includes(to);
}

/** A CLOSED incident is the final record: nothing about it (status, root cause, remediations) changes. */
export const isFinal = (status: IncidentStatus): boolean => status === 'CLOSED';

/**
 * resolvedAt after a move, and whether the move resolves the incident (writes INCIDENT_RESOLVED): only the
 * first move into RESOLVED or CLOSED stamps it; RESOLVED to CLOSED keeps the original instant.
 */
export function resolutionOf(
  from: IncidentStatus,
  to: IncidentStatus,
  resolvedAt: string | null,
  now: string,
): { resolvedAt: string | null; resolves: boolean } {
  if (!isResolved(to)) return { resolvedAt: null, resolves: false };
  if (isResolved(from)) return { resolvedAt, resolves: false };
  return { resolvedAt: now, resolves: true };
}

/** Remediation actions: planned, under way, done, or dropped. Any status may follow any other. */
export const REMEDIATION_STATUSES = ['OPEN', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'] as const;
export type RemediationStatus = (typeof REMEDIATION_STATUSES)[number];

/** completedAt after a change: kept while COMPLETED, stamped on becoming COMPLETED, cleared otherwise. */
export function remediationCompletedAt(
  from: RemediationStatus,
  to: RemediationStatus,
  completedAt: string | null,
  now: string,
): string | null {
  if (to !== 'COMPLETED') return null;
  return from === 'COMPLETED' ? completedAt : now;
}

export interface IncidentFacts {
  severity: IncidentSeverity;
  category: IncidentCategory;
  status: IncidentStatus;
  reportedAt: string;
  resolvedAt: string | null;
}

export interface TrendPoint {
  /** Calendar month in UTC, `YYYY-MM`. */
  month: string;
  /** Incidents reported in the month. */
  reported: number;
  /** Incidents resolved or closed in the month (by resolvedAt). */
  resolved: number;
  /** CRITICAL incidents reported in the month. */
  critical: number;
}

export interface IncidentStats {
  total: number;
  open: number;
  resolved: number;
  critical: number;
  byCategory: Record<IncidentCategory, number>;
  trend: TrendPoint[];
}

export const TREND_MONTHS = 12;

/** The `YYYY-MM` of the trailing 12 calendar months (UTC) ending with the month of `now`, oldest first. */
export function trailingMonths(now: Date, months = TREND_MONTHS): string[] {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  return Array.from({ length: months }, (_, i) => {
    const d = new Date(Date.UTC(year, month - (months - 1 - i), 1));
    return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  });
}

/**
 * Statistics over all of a firm's incidents: open counts OPEN, INVESTIGATING and REMEDIATING; resolved counts
 * RESOLVED and CLOSED; critical counts CRITICAL in any status; byCategory has every category (zeros
 * included); trend covers the trailing 12 calendar months (UTC) including the current one, oldest first.
 */
export function incidentStats(incidents: readonly IncidentFacts[], now: Date): IncidentStats {
  const byCategory = Object.fromEntries(INCIDENT_CATEGORIES.map((c) => [c, 0])) as Record<
    IncidentCategory,
    number
  >;
  const months = trailingMonths(now);
  const trend = new Map(months.map((month) => [month, { month, reported: 0, resolved: 0, critical: 0 }]));
  let open = 0;
  let resolved = 0;
  let critical = 0;
  for (const incident of incidents) {
    byCategory[incident.category] += 1;
    if (OPEN_STATUSES.includes(incident.status)) open += 1;
    if (isResolved(incident.status)) resolved += 1;
    if (incident.severity === 'CRITICAL') critical += 1;
    const reportedIn = trend.get(incident.reportedAt.slice(0, 7));
    if (reportedIn) {
      reportedIn.reported += 1;
      if (incident.severity === 'CRITICAL') reportedIn.critical += 1;
    }
    const resolvedIn = incident.resolvedAt ? trend.get(incident.resolvedAt.slice(0, 7)) : undefined;
    if (resolvedIn) resolvedIn.resolved += 1;
  }
  return { total: incidents.length, open, resolved, critical, byCategory, trend: [...trend.values()] };
}

/** What an incident's ledger records say of it. */
export interface IncidentRecordFacts {
  id: string;
  title: string;
  severity: IncidentSeverity;
  category: IncidentCategory;
  affectedReviewJobIds: readonly string[];
  affectedLedgerRecordIds: readonly string[];
  reportedAt: string;
}

/**
 * INCIDENT_LOGGED's documentMetadata, which INCIDENT_RESOLVED extends with the status, root cause and resolution
 * time: one shape for the incident service and the bulk seed, which must write what the live path would have.
 */
export function incidentMetadata(incident: IncidentRecordFacts): Record<string, unknown> {
  return {
    incidentId: incident.id,
    title: incident.title,
    severity: incident.severity,
    category: incident.category,
    affectedReviewJobIds: incident.affectedReviewJobIds,
    affectedLedgerRecordIds: incident.affectedLedgerRecordIds,
    reportedAt: incident.reportedAt,
  };
}
