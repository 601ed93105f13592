import type { Principal } from '../domain/auth/principal.js';
import { actorSummary, userIdOf } from '../domain/governance/actors.js';
import { normalisePeriodBound, type ReportType } from '../domain/governance/report-log.js';
import { ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import {
  putReportLogEntry,
  reportLogEntryOf,
  reportLogListQuery,
  type ReportLogItem,
} from '../store/report-log-store.js';
import { readArraySlice, type ArraySlice } from './pages.js';

export interface NewReportLogInput {
  type: ReportType;
  periodFrom: string;
  periodTo: string;
  metadata: Record<string, unknown>;
}

/**
 * Records that a report was generated: the period normalised (date-only bounds cover whole UTC days; every
 * bound stored as UTC with milliseconds; periodTo not before periodFrom, else 400) and the caller as generator.
 */
export async function logReport(
  deps: Deps,
  principal: Principal,
  input: NewReportLogInput,
): Promise<ReportLogItem> {
  const periodFrom = normalisePeriodBound(input.periodFrom, 'from');
  const periodTo = normalisePeriodBound(input.periodTo, 'to');
  const problems = [
    ...(periodFrom ? [] : [{ path: 'body.periodFrom', message: 'Not a valid date or date-time' }]),
    ...(periodTo ? [] : [{ path: 'body.periodTo', message: 'Not a valid date or date-time' }]),
  ];
  if (periodFrom && periodTo && periodTo < periodFrom)
    problems.push({ path: 'body.periodTo', message: 'periodTo is before periodFrom' });
  if (problems.length > 0) throw new ValidationError('Invalid report period', problems);
  const entry: ReportLogItem = {
    id: newId('reportLog'),
    firmId: principal.firmId,
    type: input.type,
    periodFrom: periodFrom!,
    periodTo: periodTo!,
    generatedAt: isoNow(deps.clock),
    generatedByUserId: userIdOf(principal),
    metadata: input.metadata,
    generatedByUser: actorSummary(principal),
  };
  await putReportLogEntry(deps, entry);
  return entry;
}

/**
 * The firm's entries, newest first (generatedAt, then id), optionally of one type: up to `limit` of them from
 * the request's cursor, O(limit) from the firm-lists index (issue 14).
 */
export async function firmReportLog(
  deps: Deps,
  firmId: string,
  request: { type?: ReportType | undefined; limit: number; cursor?: string | undefined },
): Promise<ArraySlice<ReportLogItem>> {
  const scope = { firmId, query: { list: 'reportLog', type: request.type } };
  return readArraySlice(
    deps,
    scope,
    request,
    reportLogListQuery(deps, firmId, request.type),
    reportLogEntryOf,
  );
}
