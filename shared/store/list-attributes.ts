import { createHash } from 'node:crypto';
import type { Deps } from '../runtime/deps.js';
import { keys } from './keys.js';
import type { KeyBound, ListQuery } from './list-page.js';
import { MAIN_LISTS, MAIN_LISTS_BY_REFERENCE, MAIN_LISTS_FILTERED } from './tables.js';

/*
 * The list attributes of main-table items (issue 14): which of the firm lists (MAIN_LISTS, MAIN_LISTS_FILTERED,
 * MAIN_LISTS_BY_REFERENCE) an item appears in, and where. Each kind's attributes are computed here and only
 * here; the stores put them on the item when they build it (and `ledgerctl backfill indexes` on older items).
 */

/** Attribute names of the list indexes, stripped from items before they leave the store. */
export const LIST_ATTRIBUTES = [
  MAIN_LISTS.partitionKey,
  MAIN_LISTS.sortKey,
  MAIN_LISTS_FILTERED.partitionKey,
  MAIN_LISTS_BY_REFERENCE.partitionKey,
] as const;

/** A list's partition: `FIRM#<firmId>#<kind>` (and `#<filter>#<value>` for a filtered one). */
const listKey = (firmId: string, ...parts: string[]) => [keys.firmPk(firmId), ...parts].join('#');

/** A firm-assigned text as a key part: `=` + the text, or `~` + its SHA-256 when long (key size limits). */
function textPart(text: string): string {
  if (Buffer.byteLength(text) <= 512) return `=${text}`;
  return `~${createHash('sha256').update(text).digest('hex')}`;
}

/** The partitions of every firm list, for queries and for the attributes below. */
export const listPartition = {
  jobs: (firmId: string) => listKey(firmId, 'JOB'),
  jobsByStatus: (firmId: string, status: string) => listKey(firmId, 'JOB', 'STATUS', status),
  jobsByClientReference: (firmId: string, reference: string) =>
    listKey(firmId, 'JOB', 'CLIENT', textPart(reference)),
  certificates: (firmId: string) => listKey(firmId, 'CERT'),
  assessments: (firmId: string) => listKey(firmId, 'IA'),
  reportLog: (firmId: string) => listKey(firmId, 'REPORT'),
  reportLogByType: (firmId: string, type: string) => listKey(firmId, 'REPORT', 'TYPE', type),
};

/** Sort key of every list: `<time>#<id>`, so newest first is ScanIndexForward false. */
const listSk = (time: string, id: string) => `${time}#${id}`;

/** A review job: all jobs and its status by submission time; its client reference. */
export function jobListAttributes(job: {
  firmId: string;
  id: string;
  submittedAt: string;
  status: string;
  clientReference: string;
}): Record<string, string> {
  return {
    listPk: listPartition.jobs(job.firmId),
    listSk: listSk(job.submittedAt, job.id),
    ...jobStatusAttributes(job.firmId, job.status),
    referencePk: listPartition.jobsByClientReference(job.firmId, job.clientReference),
  };
}

/** What a job's status change sets (the job stays in its place of the status lists' order). */
export function jobStatusAttributes(firmId: string, status: string): Record<string, string> {
  return { filterPk: listPartition.jobsByStatus(firmId, status) };
}

export function certificateListAttributes(c: { firmId: string; id: string; issuedAt: string }) {
  return { listPk: listPartition.certificates(c.firmId), listSk: listSk(c.issuedAt, c.id) };
}

export function assessmentListAttributes(a: { firmId: string; id: string; createdAt: string }) {
  return { listPk: listPartition.assessments(a.firmId), listSk: listSk(a.createdAt, a.id) };
}

export function reportLogListAttributes(e: {
  firmId: string;
  id: string;
  generatedAt: string;
  type: string;
}) {
  return {
    listPk: listPartition.reportLog(e.firmId),
    listSk: listSk(e.generatedAt, e.id),
    filterPk: listPartition.reportLogByType(e.firmId, e.type),
  };
}

/** Which index a firm list is read from. */
export type ListIndex = typeof MAIN_LISTS | typeof MAIN_LISTS_FILTERED | typeof MAIN_LISTS_BY_REFERENCE;

/**
 * The newest-first Query of one firm list (an index partition), for readListPage: a start key must be a key
 * of that partition whose item lies in the firm's partition of the table and under the item kind's prefix.
 */
export function firmListQuery(
  deps: Deps,
  firmId: string,
  list: { index: ListIndex; partition: string; skPrefix: string; filter?: FilterPart },
): ListQuery {
  const bounds: Record<string, KeyBound> = {
    pk: { equals: keys.firmPk(firmId) },
    sk: { prefix: list.skPrefix },
    [list.index.partitionKey]: { equals: list.partition },
    [list.index.sortKey]: { prefix: '' },
  };
  return {
    input: {
      TableName: deps.tables.main,
      IndexName: list.index.indexName,
      KeyConditionExpression: '#lpk = :lpk',
      ExpressionAttributeNames: { '#lpk': list.index.partitionKey, ...list.filter?.names },
      ExpressionAttributeValues: { ':lpk': list.partition, ...list.filter?.values },
      ...(list.filter ? { FilterExpression: list.filter.expression } : {}),
      ScanIndexForward: false,
    },
    keyBounds: bounds,
  };
}

/** A FilterExpression applied to a list read (its pages may come back short: bounded read budget). */
export interface FilterPart {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}
