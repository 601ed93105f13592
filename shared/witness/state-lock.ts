import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One witness process per state folder: `<state>/witness.lock` holds the owner's pid, created exclusively. A lock
 * whose pid no longer runs (a crash, kill -9) is taken over; a live one makes the second process refuse to start,
 * so two witnesses can never race on one origin's state. (If two processes recover the same stale lock at the
 * same instant, one of them may remove the other's fresh lock: start witnesses one at a time after a crash.)
 */

export class StateLockedError extends Error {
  override name = 'StateLockedError';
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockStateDir(stateDir: string): { release(): void } {
  const file = join(stateDir, 'witness.lock');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return {
        release() {
          try {
            if (readFileSync(file, 'utf8').trim() === String(process.pid)) unlinkSync(file);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && running(owner)) {
        throw new StateLockedError(`state folder ${stateDir} is in use by witness process ${owner}`);
      }
      unlinkSync(file); // stale: its process is gone
    }
  }
  throw new StateLockedError(`could not take the lock of state folder ${stateDir}`);
}
