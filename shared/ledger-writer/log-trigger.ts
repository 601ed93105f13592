import { checkpointIntervalMs } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import type { LogCheckpointMessage } from '../services/log-checkpoint-run.js';

/**
 * Tells the `log-checkpoint` worker that a firm committed records (issue 31), keeping the write path as cheap as
 * it was: at most one queue message per firm per CHECKPOINT_INTERVAL_MS window per process, sent without being
 * waited for, whatever the number of batches. The message's run waits until the window's end (`notBefore`)
 * before it looks, so the commits this process skips in the window are committed before that look; a run that
 * finds the log lease held ends, and the holder re-reads the head after releasing it (log-checkpoint-run.ts).
 * A message lost (send failed, process frozen) is repaired by the log repair sweep.
 */
const sentWindow = new WeakMap<Deps, Map<string, number>>();

export function triggerCheckpoint(deps: Deps, firmId: string): void {
  const interval = checkpointIntervalMs();
  const window = Math.floor(Date.now() / interval);
  let byFirm = sentWindow.get(deps);
  if (!byFirm) sentWindow.set(deps, (byFirm = new Map()));
  if (byFirm.get(firmId) === window) return;
  byFirm.set(firmId, window);
  const message: LogCheckpointMessage = { firmId, notBefore: (window + 1) * interval };
  const failed = (error: unknown) => {
    if (byFirm.get(firmId) === window) byFirm.delete(firmId);
    logger.warn('Queuing a log checkpoint failed; the log repair sweep will catch up', {
      firmId,
      error: error as Error,
    });
  };
  // Never in the way of the commit: a queue that cannot even be reached fails like a failed send.
  try {
    deps.queue.send('log-checkpoint', message).catch(failed);
  } catch (error) {
    failed(error);
  }
}
