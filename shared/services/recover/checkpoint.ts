/**
 * Where a ledger recovery of a firm stands (`ledgerctl recover ledger`): one item in the main table,
 * `FIRM#<firmId>` / `RECOVERY#LEDGER`, so it survives the loss of the ledger table it rebuilds. `position` is the
 * highest sequence number up to which every row is written (a run that crashes rewrites at most the rows after
 * it, with the same bytes); `chainHash` and `timestamp` are that record's, what the next position links to and
 * the head will name.
 */
import type { Deps } from '../../runtime/deps.js';
import { writeConditionally } from '../../store/conditional-write.js';
import { send } from '../../store/dynamo.js';
import { keys } from '../../store/keys.js';

/**
 * `running`: rows are being written, the head is not (a crash leaves this; the next run resumes).
 * `stopped`: the chain could not be rebuilt past `position` (a gap or a copy that fails its checks); the head
 * is at `position`. `complete`: every copy was recovered; the head is at `position`.
 */
export type RecoveryStatus = 'running' | 'stopped' | 'complete';

export interface RecoveryCheckpoint {
  runId: string;
  status: RecoveryStatus;
  position: number;
  chainHash: string | null;
  timestamp: string | null;
  startedAt: string;
  updatedAt: string;
}

const checkpointKey = (firmId: string) => ({ pk: keys.firmPk(firmId), sk: 'RECOVERY#LEDGER' });

export async function readCheckpoint(deps: Deps, firmId: string): Promise<RecoveryCheckpoint | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: checkpointKey(firmId),
    ConsistentRead: true,
  });
  if (!Item) return null;
  const { runId, status, position, chainHash, timestamp, startedAt, updatedAt } = Item;
  return { runId, status, position, chainHash, timestamp, startedAt, updatedAt } as RecoveryCheckpoint;
}

/**
 * Saves the run's progress, conditional on the item being absent or this run's (a run started meanwhile by
 * another operator wins, and this one stops). False when the condition failed.
 */
export async function saveCheckpoint(
  deps: Deps,
  firmId: string,
  checkpoint: RecoveryCheckpoint,
  replacingRun: string | null,
): Promise<boolean> {
  const outcome = await writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.main,
        Item: { ...checkpointKey(firmId), ...checkpoint },
        ...(replacingRun === null
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : { ConditionExpression: 'runId = :run', ExpressionAttributeValues: { ':run': replacingRun } }),
      },
    },
  ]);
  if (outcome.status === 'committed') return true;
  if (outcome.status === 'condition-failed') return false;
  throw new Error(`Saving the recovery checkpoint of ${firmId} met a concurrent write`);
}
