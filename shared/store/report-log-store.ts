import type { ActorSummary } from '../domain/governance/actors.js';
import type { ReportType } from '../domain/governance/report-log.js';
import type { Deps } from '../runtime/deps.js';
import { writeNew } from './conditional-write.js';
import { withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import { firmListQuery, LIST_ATTRIBUTES, listPartition, reportLogListAttributes } from './list-attributes.js';
import type { ListQuery } from './list-page.js';
import { MAIN_LISTS, MAIN_LISTS_FILTERED } from './tables.js';

/** A reports-log entry: `FIRM#<firmId>` / `REPORT#<entryId>`. Entries are never changed or deleted. */
export interface ReportLogItem {
  id: string;
  firmId: string;
  type: ReportType;
  periodFrom: string;
  periodTo: string;
  generatedAt: string;
  generatedByUserId: string | null;
  metadata: Record<string, unknown>;
  generatedByUser: ActorSummary;
}

export async function putReportLogEntry(deps: Deps, entry: ReportLogItem): Promise<void> {
  await writeNew(
    deps,
    [
      {
        Put: {
          TableName: deps.tables.main,
          Item: { ...keys.reportLog(entry.firmId, entry.id), ...entry, ...reportLogListAttributes(entry) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
    `report log entry ${entry.id}`,
  );
}

/** The firm's entries newest first (generatedAt, then id), all or of one type, as a list query (issue 14). */
export function reportLogListQuery(deps: Deps, firmId: string, type?: ReportType): ListQuery {
  return firmListQuery(deps, firmId, {
    index: type ? MAIN_LISTS_FILTERED : MAIN_LISTS,
    partition: type ? listPartition.reportLogByType(firmId, type) : listPartition.reportLog(firmId),
    skPrefix: SK_PREFIX.reportLog,
  });
}

/** An entry read from a list, without its storage attributes. */
export const reportLogEntryOf = (item: Record<string, unknown>) =>
  withoutKeys(item, LIST_ATTRIBUTES) as unknown as ReportLogItem;
