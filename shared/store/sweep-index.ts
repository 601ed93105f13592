import type { Deps } from '../runtime/deps.js';
import { send } from './dynamo.js';
import { MAIN_JOB_SWEEP } from './tables.js';

/**
 * The main table's sparse sweep index (MAIN_JOB_SWEEP: `sweepKind`, `sweepDue` = `<instant>#<firmId>#<id>`), which
 * holds only the items a scheduled sweep must look at: review jobs by SLA deadline or unfinished completion
 * (./review-job-store.ts), running verifications by last progress (./integrity-store.ts).
 */

/** Items of `kind` due strictly before `before`, oldest first, at most `limit`: one Query, paged. */
export async function dueInSweepIndex(
  deps: Deps,
  kind: string,
  before: string,
  limit: number,
): Promise<{ firmId: string; id: string }[]> {
  const found: { firmId: string; id: string }[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await send(deps.db, 'Query', {
      TableName: deps.tables.main,
      IndexName: MAIN_JOB_SWEEP,
      KeyConditionExpression: 'sweepKind = :kind AND sweepDue < :before',
      ExpressionAttributeValues: { ':kind': kind, ':before': before },
      ProjectionExpression: 'firmId, id',
      Limit: limit - found.length,
      ExclusiveStartKey: startKey,
    });
    for (const item of page.Items ?? []) found.push({ firmId: item.firmId as string, id: item.id as string });
    startKey = page.LastEvaluatedKey;
  } while (startKey && found.length < limit);
  return found;
}
