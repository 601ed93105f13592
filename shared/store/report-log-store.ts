import type { ActorSummary } from '../domain/governance/actors.js';
import type { ReportType } from '../domain/governance/report-log.js';
import type { Deps } from '../runtime/deps.js';
import { writeNew } from './conditional-write.js';
import { queryAll, withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';

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
          Item: { ...keys.reportLog(entry.firmId, entry.id), ...entry },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
    `report log entry ${entry.id}`,
  );
}

/** Every entry of the firm, newest key first. */
export async function listReportLog(deps: Deps, firmId: string): Promise<ReportLogItem[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ':prefix': SK_PREFIX.reportLog },
    ScanIndexForward: false,
  });
  return items.map((item) => withoutKeys(item) as unknown as ReportLogItem);
}
