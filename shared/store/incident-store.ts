import type { ActorSummary } from '../domain/governance/actors.js';
import type {
  IncidentCategory,
  IncidentFacts,
  IncidentSeverity,
  IncidentStatus,
  RemediationStatus,
} from '../domain/governance/incidents.js';
import type { CursorKey } from '../domain/pagination/cursor.js';
import { ValidationError } from '../errors.js';
import type { Deps } from '../runtime/deps.js';
import { queryAll, send, withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import type { TransactItem } from './conditional-write.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

/**
 * An incident, `FIRM#<firmId>` / `INC#<incidentId>`, and its remediation actions right after it,
 * `INC#<incidentId>#REM#<remediationId>`: one query reads an incident with its remediations, and one descending
 * query the most recent incidents with theirs.
 */
export interface IncidentItem {
  id: string;
  firmId: string;
  title: string;
  description: string;
  severity: IncidentSeverity;
  category: IncidentCategory;
  status: IncidentStatus;
  reportedAt: string;
  reportedById: string | null;
  reportedBy: ActorSummary;
  resolvedAt: string | null;
  rootCause: string | null;
  affectedReviewJobIds: string[];
  affectedLedgerRecordIds: string[];
  metadata: Record<string, unknown>;
  /** Optimistic-concurrency counter; not part of the interface. */
  version: number;
}

export interface RemediationItem {
  id: string;
  incidentId: string;
  firmId: string;
  description: string;
  status: RemediationStatus;
  ownerName: string | null;
  dueAt: string | null;
  completedAt: string | null;
  createdAt: string;
  version: number;
}

const isRemediationKey = (sk: unknown) => typeof sk === 'string' && sk.includes('#REM#');

export function incidentPutItem(deps: Deps, incident: IncidentItem): TransactItem {
  return {
    Put: {
      TableName: deps.tables.main,
      Item: { ...keys.incident(incident.firmId, incident.id), ...incident },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export function remediationPutItem(deps: Deps, remediation: RemediationItem): TransactItem {
  return {
    Put: {
      TableName: deps.tables.main,
      Item: {
        ...keys.remediation(remediation.firmId, remediation.incidentId, remediation.id),
        ...remediation,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** For a transaction: the incident exists and is not CLOSED (remediations of a closed incident are final). */
export function incidentOpenCheck(deps: Deps, firmId: string, incidentId: string): TransactItem {
  return {
    ConditionCheck: {
      TableName: deps.tables.main,
      Key: keys.incident(firmId, incidentId),
      ConditionExpression: 'attribute_exists(pk) AND #status <> :closed',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':closed': 'CLOSED' },
    },
  };
}

export interface IncidentWithRemediations {
  incident: IncidentItem;
  remediations: RemediationItem[];
}

/** Groups incident and remediation items; remediations oldest first. */
function group(items: Record<string, unknown>[]): IncidentWithRemediations[] {
  const incidents = new Map<string, IncidentWithRemediations>();
  const remediations: RemediationItem[] = [];
  for (const item of items) {
    if (isRemediationKey(item.sk)) remediations.push(withoutKeys(item) as unknown as RemediationItem);
    else {
      const incident = withoutKeys(item) as unknown as IncidentItem;
      incidents.set(incident.id, { incident, remediations: [] });
    }
  }
  for (const remediation of remediations)
    incidents.get(remediation.incidentId)?.remediations.push(remediation);
  for (const entry of incidents.values())
    entry.remediations.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  return [...incidents.values()];
}

/** One incident with its remediations (one strongly consistent query), or null. */
export async function getIncidentWithRemediations(
  deps: Deps,
  firmId: string,
  incidentId: string,
): Promise<IncidentWithRemediations | null> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', keys.incident(firmId, incidentId).sk),
    },
    ConsistentRead: true,
  });
  return group(items).find((entry) => entry.incident.id === incidentId) ?? null;
}

/**
 * The `limit` most recently created incidents with their remediations, after `after` (the key of the last
 * incident of the previous slice; checked to be one of the firm's incidents), and the key to continue after
 * (null at the end). Reads backwards by key and stops after the limit-th incident: a remediation sorts after
 * its incident, so reading backwards it comes before it, and every remediation of the incidents kept has been
 * read by then. O(limit × remediations per incident), whatever the firm's history (issue 14).
 */
export async function listRecentIncidents(
  deps: Deps,
  firmId: string,
  limit: number,
  after: CursorKey | null = null,
): Promise<{ incidents: IncidentWithRemediations[]; next: CursorKey | null }> {
  const pk = keys.firmPk(firmId);
  const sk = after?.sk;
  if (
    after &&
    (Object.keys(after).length !== 2 ||
      after.pk !== pk ||
      typeof sk !== 'string' ||
      !sk.startsWith(SK_PREFIX.incident) ||
      isRemediationKey(sk))
  )
    throw new ValidationError('Invalid cursor', [
      {
        path: 'query.cursor',
        message: 'The cursor does not point into this list: use the Link as it was returned',
      },
    ]);
  const items: Record<string, unknown>[] = [];
  let incidents = 0;
  let startKey: Record<string, unknown> | undefined = after ?? undefined;
  do {
    const page = await send(deps.db, 'Query', {
      TableName: deps.tables.main,
      KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
      ExpressionAttributeValues: { ':pk': pk, ...skPrefixValues(':prefix', SK_PREFIX.incident) },
      ScanIndexForward: false,
      ExclusiveStartKey: startKey,
      Limit: limit + 20,
    });
    for (const item of page.Items ?? []) {
      if (!isRemediationKey(item.sk) && incidents === limit)
        return {
          incidents: group(items),
          next: { pk, sk: items.findLast((i) => !isRemediationKey(i.sk))!.sk as string },
        };
      items.push(item);
      if (!isRemediationKey(item.sk)) incidents++;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { incidents: group(items), next: null };
}

/** The fields the statistics need, of every incident of the firm. */
export async function listIncidentFacts(
  deps: Deps,
  firmId: string,
): Promise<(IncidentFacts & { id: string })[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    ConsistentRead: true,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', SK_PREFIX.incident),
    },
    ProjectionExpression: 'sk, severity, category, #status, reportedAt, resolvedAt',
    ExpressionAttributeNames: { '#status': 'status' },
  });
  return items
    .filter((item) => !isRemediationKey(item.sk))
    .map((item) => ({
      id: String(item.sk).slice(SK_PREFIX.incident.length),
      severity: item.severity as IncidentSeverity,
      category: item.category as IncidentCategory,
      status: item.status as IncidentStatus,
      reportedAt: item.reportedAt as string,
      resolvedAt: (item.resolvedAt as string | null | undefined) ?? null,
    }));
}
