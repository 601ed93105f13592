import { checkpointIntervalMs } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { registeredFirms } from '../store/backup-store.js';
import { readHead } from '../store/ledger-store.js';
import { readLatestCheckpoint, readLogTree } from '../store/log-store.js';
import type { LogCheckpointMessage } from './log-checkpoint-run.js';

/**
 * The log repair sweep (issue 31): every firm whose log is behind its ledger (LOGTREE.size below the chain head,
 * or the latest checkpoint below LOGTREE) gets a `log-checkpoint` message. It repairs a lost trigger message or
 * a crash between a commit and its integration, and it starts the one-time build of the trees of firms whose
 * ledgers predate the log (their LOGTREE is absent): the build then goes on in bounded, re-queued steps, online.
 * Three strongly consistent Gets per firm, a few firms at a time.
 */
const FIRMS_AT_ONCE = 8;

export interface LogRepairResult {
  firms: number;
  triggered: string[];
}

export async function repairLogs(deps: Deps): Promise<LogRepairResult> {
  if (checkpointIntervalMs() === 0) return { firms: 0, triggered: [] }; // checkpoints are off
  const firms = (await registeredFirms(deps)).map((f) => f.firmId);
  const triggered: string[] = [];
  for (let i = 0; i < firms.length; i += FIRMS_AT_ONCE) {
    await Promise.all(
      firms.slice(i, i + FIRMS_AT_ONCE).map(async (firmId) => {
        if (!(await logBehind(deps, firmId))) return;
        await deps.queue.send('log-checkpoint', { firmId } satisfies LogCheckpointMessage);
        triggered.push(firmId);
      }),
    );
  }
  return { firms: firms.length, triggered };
}

/** Is the firm's log behind its ledger (records not integrated, or a tree not yet checkpointed)? */
export async function logBehind(deps: Deps, firmId: string): Promise<boolean> {
  const [head, tree, checkpoint] = await Promise.all([
    readHead(deps, firmId),
    readLogTree(deps, firmId),
    readLatestCheckpoint(deps, firmId),
  ]);
  const size = tree?.size ?? 0;
  return size < head.sequenceNumber || (checkpoint?.size ?? 0) < size;
}
