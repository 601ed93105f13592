import { inBackground } from '../runtime/background-work.js';
import { checkpointIntervalMs } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import type { LogCheckpointMessage } from '../services/log-checkpoint-run.js';

/**
 * Tells the `log-checkpoint` worker that a firm committed records (issue 31), keeping the write path as cheap as
 * it was: no call is awaited, and whatever the number of batches, a process sends at most two messages per firm
 * per CHECKPOINT_INTERVAL_MS window. The window's first commit sends one at once (a lone append's checkpoint
 * comes right after it); the second sends a trailing one that SQS delivers after the window's end (delaySeconds,
 * whole seconds), so every later commit of the window precedes that run's look; the rest send nothing. A run
 * that finds the log lease held ends, and the holder re-reads the head after releasing it
 * (shared/services/log-checkpoint-run.ts). Each message says it stands for commits, the immediate one up to `upTo`
 * (the batch's last sequence number), so a run that finds them covered by the latest checkpoint ends on a read. A
 * lost message (failed send, frozen process) is repaired by the log repair sweep.
 */
const windows = new WeakMap<Deps, Map<string, { window: number; trailing: boolean }>>();

export function triggerCheckpoint(deps: Deps, firmId: string, upTo: number): void {
  const interval = checkpointIntervalMs();
  if (interval === 0) return; // checkpoints are off
  const now = Date.now();
  const window = Math.floor(now / interval);
  let byFirm = windows.get(deps);
  if (!byFirm) windows.set(deps, (byFirm = new Map()));
  const seen = byFirm.get(firmId);
  let delaySeconds: number;
  if (seen?.window !== window) {
    byFirm.set(firmId, { window, trailing: false });
    delaySeconds = 0;
  } else if (!seen.trailing) {
    seen.trailing = true;
    delaySeconds = Math.max(1, Math.ceil(((window + 1) * interval - now) / 1000));
  } else {
    return;
  }
  const failed = (error: unknown) => {
    // The next commit sends again (a trailing message is not re-sent: the sweep repairs that window).
    if (delaySeconds === 0 && byFirm.get(firmId)?.window === window) byFirm.delete(firmId);
    logger.warn('Queuing a log checkpoint failed; the log repair sweep will catch up', {
      firmId,
      error: error as Error,
    });
  };
  // Never in the way of the commit: a queue that cannot even be reached fails like a failed send.
  try {
    inBackground(
      deps.queue
        .send('log-checkpoint', checkpointMessage(firmId, delaySeconds === 0 ? upTo : undefined), {
          delaySeconds,
        })
        .catch(failed),
    );
  } catch (error) {
    failed(error);
  }
}

/** A message for commits: up to `upTo`, or (a trailing message, for the rest of its window too) open-ended. */
function checkpointMessage(firmId: string, upTo: number | undefined): LogCheckpointMessage {
  return { firmId, commits: upTo === undefined ? {} : { upTo } };
}
