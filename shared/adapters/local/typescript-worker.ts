import { Worker } from 'node:worker_threads';

// A worker thread does not inherit the main thread's module hooks, so a thread that runs the TypeScript sources
// (as the main thread does under tsx) registers tsx's loader (tsx/esm/api) before importing its entry point.
const TSX_API = import.meta.resolve('tsx/esm/api');
const BOOT = `import { register } from ${JSON.stringify(TSX_API)};
import { workerData } from 'node:worker_threads';
register();
await import(workerData.entry);`;

/**
 * Starts a worker thread running the TypeScript module `entry` (a file URL), with `data` as its workerData (plus
 * `entry` itself, which the module may check to know it is the thread's entry point).
 */
export function startTypeScriptWorker(entry: string, data: object): Worker {
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(BOOT)}`), {
    workerData: { ...data, entry },
  });
}
