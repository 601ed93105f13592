/**
 * A preload that CPU-profiles the embedded stack's threads (the server's main thread and every Lambda-like
 * instance) for a fixed window, for finding where a bench's CPU goes. Node refuses --cpu-prof in NODE_OPTIONS and
 * an instance is terminated rather than exited, so each thread profiles itself through node:inspector and writes
 * `p-<pid>-<threadId>.cpuprofile` to PROFILE_DIR once PROFILE_MS (100,000) have passed since it started:
 *
 *   PROFILE_DIR=/tmp/prof NODE_OPTIONS="--require $PWD/bench/lib/profile-threads.cjs" npm run bench:append
 *
 * Open the files in Chrome DevTools (Performance) or any .cpuprofile viewer. Only the stack's processes
 * (bin/local.ts and its worker threads) profile themselves; the bench and npm are left alone.
 */
'use strict';
const { isMainThread, threadId } = require('node:worker_threads');

const dir = process.env.PROFILE_DIR;
const isStack = !isMainThread || process.argv.some((arg) => arg.endsWith('bin/local.ts'));
if (dir && isStack) {
  const { Session } = require('node:inspector');
  const { writeFileSync } = require('node:fs');
  const { join } = require('node:path');
  const session = new Session();
  session.connect();
  session.post('Profiler.enable', () =>
    session.post('Profiler.setSamplingInterval', { interval: 1000 }, () => session.post('Profiler.start')),
  );
  setTimeout(
    () =>
      session.post('Profiler.stop', (error, result) => {
        if (!error)
          writeFileSync(join(dir, `p-${process.pid}-${threadId}.cpuprofile`), JSON.stringify(result.profile));
      }),
    Number(process.env.PROFILE_MS ?? 100_000),
  ).unref();
}
