import { actorOf, type Principal } from '../domain/auth/principal.js';
import { encodeCursor } from '../domain/pagination/cursor.js';
import { actorSummary, userIdOf } from '../domain/governance/actors.js';
import {
  canMoveIncident,
  INITIAL_INCIDENT_STATUS,
  isFinal,
  incidentMetadata,
  remediationCompletedAt,
  resolutionOf,
  type IncidentCategory,
  type IncidentSeverity,
  type IncidentStats,
  type IncidentStatus,
  type RemediationStatus,
} from '../domain/governance/incidents.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { isId, newId } from '../ids.js';
import { appendRecord, appendUnlessRaced } from '../ledger-writer/append.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import {
  getIncidentWithRemediations,
  incidentOpenCheck,
  incidentPutItem,
  listRecentIncidents,
  remediationPutItem,
  type IncidentItem,
  type IncidentWithRemediations,
  type RemediationItem,
} from '../store/incident-store.js';
import { keys } from '../store/keys.js';
import { getJob } from '../store/review-job-store.js';
import { writeConditionally } from '../store/conditional-write.js';
import { incidentCounterItems, readCounterFamily } from '../store/counter-store.js';
import { incidentStatsOf } from '../domain/counters/reports.js';
import { LOST_RACE, retryOnLostRace } from '../store/lost-race.js';
import { versionedUpdateItem } from '../store/versioned-writes.js';
import { listStart, type ArraySlice } from './pages.js';

const ATTEMPTS = 5;

export function presentRemediation(item: RemediationItem) {
  return {
    id: item.id,
    incidentId: item.incidentId,
    description: item.description,
    status: item.status,
    ownerName: item.ownerName,
    dueAt: item.dueAt,
    completedAt: item.completedAt,
    createdAt: item.createdAt,
  };
}
export type PublicRemediation = ReturnType<typeof presentRemediation>;

export function presentIncident({ incident, remediations }: IncidentWithRemediations) {
  return {
    id: incident.id,
    firmId: incident.firmId,
    title: incident.title,
    description: incident.description,
    severity: incident.severity,
    category: incident.category,
    status: incident.status,
    reportedAt: incident.reportedAt,
    reportedById: incident.reportedById,
    resolvedAt: incident.resolvedAt,
    rootCause: incident.rootCause,
    affectedReviewJobIds: incident.affectedReviewJobIds,
    affectedLedgerRecordIds: incident.affectedLedgerRecordIds,
    metadata: incident.metadata,
    remediations: remediations.map(presentRemediation),
    reportedBy: incident.reportedBy,
  };
}
export type PublicIncident = ReturnType<typeof presentIncident>;

export interface NewIncidentInput {
  title: string;
  description: string;
  severity: IncidentSeverity;
  category: IncidentCategory;
  affectedReviewJobIds: string[];
  affectedLedgerRecordIds: string[];
  metadata: Record<string, unknown>;
}

/** A new incident (status OPEN, a fresh id) as logIncident stores it, reported by `principal` at `reportedAt`. */
export function newIncident(principal: Principal, input: NewIncidentInput, reportedAt: string): IncidentItem {
  return {
    id: newId('incident'),
    firmId: principal.firmId,
    title: input.title,
    description: input.description,
    severity: input.severity,
    category: input.category,
    status: INITIAL_INCIDENT_STATUS,
    reportedAt,
    reportedById: userIdOf(principal),
    reportedBy: actorSummary(principal),
    resolvedAt: null,
    rootCause: null,
    affectedReviewJobIds: input.affectedReviewJobIds,
    affectedLedgerRecordIds: input.affectedLedgerRecordIds,
    metadata: input.metadata,
    version: 1,
  };
}

/**
 * Logs an incident (status OPEN) together with its INCIDENT_LOGGED record, in one transaction. Every affected
 * job must be one of the firm's (400 otherwise; another firm's job looks exactly like an unknown one).
 */
export async function logIncident(
  deps: Deps,
  principal: Principal,
  input: NewIncidentInput,
): Promise<PublicIncident> {
  const firmId = principal.firmId;
  const found = await Promise.all(input.affectedReviewJobIds.map((id) => getJob(deps, firmId, id)));
  const unknown = input.affectedReviewJobIds.flatMap((id, i) =>
    found[i] ? [] : [{ path: `body.affectedReviewJobIds.${i}`, message: `No review job ${id} in the firm` }],
  );
  if (unknown.length > 0) throw new ValidationError('Unknown affected review jobs', unknown);

  const incident = newIncident(principal, input, isoNow(deps.clock));
  await appendRecord(
    deps,
    {
      firmId,
      eventType: 'INCIDENT_LOGGED',
      actor: actorOf(principal),
      documentMetadata: incidentMetadata(incident),
    },
    {
      // The incident's id is new: nothing can be in its way, so its creation is not checked before signing.
      creates: [incidentPutItem(deps, incident)],
      with: incidentCounterItems(deps, firmId, incident.id, null, incident),
    },
  );
  return presentIncident({ incident, remediations: [] });
}

async function load(deps: Deps, firmId: string, id: string): Promise<IncidentWithRemediations> {
  const found = isId('incident', id) ? await getIncidentWithRemediations(deps, firmId, id) : null;
  if (!found) throw new NotFoundError('Incident not found');
  return found;
}

export async function getFirmIncident(deps: Deps, firmId: string, id: string): Promise<PublicIncident> {
  return presentIncident(await load(deps, firmId, id));
}

/**
 * Up to `limit` (default 200) of the most recent incidents, newest first (reportedAt, then id), each with
 * remediations and reporter, from the request's cursor (issue 14: O(limit), the rest by Link rel="next").
 */
export async function listFirmIncidents(
  deps: Deps,
  firmId: string,
  request: { limit: number; cursor?: string | undefined },
): Promise<ArraySlice<PublicIncident>> {
  const scope = { firmId, query: { list: 'incidents', limit: request.limit } };
  const start = listStart(scope, { page: 1, pageSize: request.limit, cursor: request.cursor });
  const { incidents, next } = await listRecentIncidents(deps, firmId, request.limit, start.startKey);
  const nextCursor = next
    ? encodeCursor(scope, { page: start.page + 1, offset: start.offset + incidents.length, key: next })
    : null;
  const items = incidents
    .sort(
      (a, b) =>
        b.incident.reportedAt.localeCompare(a.incident.reportedAt) ||
        b.incident.id.localeCompare(a.incident.id),
    )
    .map(presentIncident);
  return { items, nextCursor };
}

/** From the `incidents` counters kept with every incident write (one Query of the family's shards). */
export async function firmIncidentStats(deps: Deps, firmId: string): Promise<IncidentStats> {
  const { counters } = await readCounterFamily(deps, firmId, 'incidents');
  return incidentStatsOf(counters, deps.clock.now());
}

export interface IncidentUpdate {
  status?: IncidentStatus | undefined;
  rootCause?: string | null | undefined;
}

/**
 * Moves the status and/or sets the root cause. The first move into RESOLVED or CLOSED stamps resolvedAt and
 * writes INCIDENT_RESOLVED in the same transaction, conditional on the version read: of concurrent resolutions
 * exactly one writes the record, the others re-read and find nothing left to do (200, unchanged). A CLOSED
 * incident is final (409 for any change); a move the graph does not allow is 409.
 */
export async function changeIncident(
  deps: Deps,
  principal: Principal,
  id: string,
  update: IncidentUpdate,
): Promise<PublicIncident> {
  return retryOnLostRace(
    async () => {
      const current = await load(deps, principal.firmId, id);
      const incident = current.incident;
      const target = update.status ?? incident.status;
      if (!canMoveIncident(incident.status, target))
        throw new ConflictError(`An incident cannot move from ${incident.status} to ${target}`);
      const now = isoNow(deps.clock);
      const resolution = resolutionOf(incident.status, target, incident.resolvedAt, now);
      const change: Partial<IncidentItem> = {};
      if (target !== incident.status) change.status = target;
      if (resolution.resolvedAt !== incident.resolvedAt) change.resolvedAt = resolution.resolvedAt;
      if (update.rootCause !== undefined && update.rootCause !== incident.rootCause)
        change.rootCause = update.rootCause;
      if (Object.keys(change).length === 0) return presentIncident(current);
      if (isFinal(incident.status)) throw new ConflictError('A CLOSED incident is final');

      const key = keys.incident(incident.firmId, incident.id);
      const item = versionedUpdateItem(deps, key, incident.version, change);
      const next = {
        incident: { ...incident, ...change, version: incident.version + 1 },
        remediations: current.remediations,
      };
      // The statistics' counters move with the incident, in the same transaction (issue 14).
      const counted = incidentCounterItems(deps, incident.firmId, incident.id, incident, next.incident);
      if (!resolution.resolves) {
        const outcome = await writeConditionally(deps, [item, ...counted]);
        return outcome.status === 'committed' ? presentIncident(next) : LOST_RACE;
      }
      // LOST_RACE: the incident's version moved (re-read and decide again).
      const record = await appendUnlessRaced(
        deps,
        {
          firmId: incident.firmId,
          eventType: 'INCIDENT_RESOLVED',
          actor: actorOf(principal),
          documentMetadata: {
            ...incidentMetadata(incident),
            status: target,
            rootCause: next.incident.rootCause,
            resolvedAt: next.incident.resolvedAt,
          },
        },
        [item, ...counted],
      );
      return record === LOST_RACE ? LOST_RACE : presentIncident(next);
    },
    {
      attempts: ATTEMPTS,
      exhausted: () => new ConflictError('The incident was changed concurrently; retry'),
    },
  );
}

export interface NewRemediationInput {
  description: string;
  ownerName?: string | null | undefined;
  dueAt?: string | null | undefined;
}

/** Adds a remediation action (status OPEN) to an incident that is not CLOSED (409). */
export async function addRemediation(
  deps: Deps,
  principal: Principal,
  incidentId: string,
  input: NewRemediationInput,
): Promise<PublicRemediation> {
  const { incident } = await load(deps, principal.firmId, incidentId);
  if (isFinal(incident.status)) throw new ConflictError('A CLOSED incident is final');
  const remediation: RemediationItem = {
    id: newId('remediation'),
    incidentId: incident.id,
    firmId: incident.firmId,
    description: input.description,
    status: 'OPEN',
    ownerName: input.ownerName ?? null,
    dueAt: input.dueAt ? new Date(input.dueAt).toISOString() : null,
    completedAt: null,
    createdAt: isoNow(deps.clock),
    version: 1,
  };
  const outcome = await writeConditionally(deps, [
    incidentOpenCheck(deps, incident.firmId, incident.id),
    remediationPutItem(deps, remediation),
  ]);
  if (outcome.status !== 'committed') throw new ConflictError('The incident was closed meanwhile');
  return presentRemediation(remediation);
}

export interface RemediationUpdate {
  status?: RemediationStatus | undefined;
  description?: string | undefined;
  ownerName?: string | null | undefined;
  dueAt?: string | null | undefined;
}

/**
 * Changes a remediation action: completedAt is stamped when it becomes COMPLETED, kept while it stays so and
 * cleared for any other status. The incident must not be CLOSED (409), checked in the same transaction.
 */
export async function changeRemediation(
  deps: Deps,
  principal: Principal,
  incidentId: string,
  remediationId: string,
  update: RemediationUpdate,
): Promise<PublicRemediation> {
  return retryOnLostRace(
    async () => {
      const { incident, remediations } = await load(deps, principal.firmId, incidentId);
      const current = remediations.find((r) => r.id === remediationId);
      if (!current) throw new NotFoundError('Remediation not found');
      const status = update.status ?? current.status;
      const next: Record<string, unknown> = {
        status,
        completedAt: remediationCompletedAt(current.status, status, current.completedAt, isoNow(deps.clock)),
        description: update.description ?? current.description,
        ownerName: update.ownerName === undefined ? current.ownerName : update.ownerName,
        dueAt:
          update.dueAt === undefined
            ? current.dueAt
            : update.dueAt === null
              ? null
              : new Date(update.dueAt).toISOString(),
      };
      const change = Object.fromEntries(
        Object.entries(next).filter(([field, value]) => value !== current[field as keyof RemediationItem]),
      );
      if (Object.keys(change).length === 0) return presentRemediation(current);
      if (isFinal(incident.status)) throw new ConflictError('A CLOSED incident is final');
      const outcome = await writeConditionally(deps, [
        incidentOpenCheck(deps, incident.firmId, incident.id),
        versionedUpdateItem(
          deps,
          keys.remediation(incident.firmId, incident.id, current.id),
          current.version,
          change,
        ),
      ]);
      if (outcome.status !== 'committed') return LOST_RACE;
      return presentRemediation({ ...current, ...change, version: current.version + 1 } as RemediationItem);
    },
    {
      attempts: ATTEMPTS,
      exhausted: () => new ConflictError('The remediation was changed concurrently; retry'),
    },
  );
}
