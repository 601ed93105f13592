/**
 * The ideal storage work of appends (./ideal-append.ts) on a thread of its own, so that a bench measuring
 * latencies on its main thread does not count this work's CPU in them (bench/rate-limits `ideal` and `storage`).
 * The main thread says how many appends were admitted; the thread writes all that wait at each turn in one
 * round, the largest batches arrivals allow, and reports how many it wrote when told to finish.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { startTypeScriptWorker } from '../../shared/adapters/local/typescript-worker.js';
import { createLocalDeps } from '../../shared/runtime/local-deps.js';
import type { EmbeddedStack } from './stack.js';
import { idealRound, newChain } from './ideal-append.js';

interface WriterData {
  stack: Pick<EmbeddedStack, 'baseUrl' | 'dynamoEndpoint' | 'dataDir'>;
  firmId: string;
  warmUp: number;
  entry?: string;
}

type ToWriter = { kind: 'admitted' } | { kind: 'finish' };
type FromWriter =
  { kind: 'ready' } | { kind: 'finished'; written: number } | { kind: 'failed'; error: string };

export interface IdealWriter {
  /** One more append admitted: written in the next round. */
  admit(): void;
  /** Resolves with the number of appends written, once every admitted one is. */
  finish(): Promise<number>;
}

/**
 * Starts the writer for `firmId`'s chain (a firm nothing else appends to) on the stack's stores, once it has
 * written `warmUp` appends of its own (its SDK client, connections and compiled code warm, as the stack's are
 * after a bench's warm-up).
 */
export async function startIdealWriter(
  stack: EmbeddedStack,
  firmId: string,
  warmUp: number,
): Promise<IdealWriter> {
  const data: Omit<WriterData, 'entry'> = {
    stack: { baseUrl: stack.baseUrl, dynamoEndpoint: stack.dynamoEndpoint, dataDir: stack.dataDir },
    firmId,
    warmUp,
  };
  const worker = startTypeScriptWorker(import.meta.url, data);
  const next = () =>
    new Promise<FromWriter>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  const ready = await next();
  if (ready.kind !== 'ready') throw new Error(`The ideal writer did not start: ${JSON.stringify(ready)}`);
  return {
    admit: () => worker.postMessage({ kind: 'admitted' } satisfies ToWriter),
    async finish() {
      const finished = next();
      worker.postMessage({ kind: 'finish' } satisfies ToWriter);
      const outcome = await finished;
      await worker.terminate();
      if (outcome.kind !== 'finished') throw new Error(`The ideal writer failed: ${JSON.stringify(outcome)}`);
      return outcome.written;
    },
  };
}

/** The thread: rounds of whatever was admitted since the last one. */
async function runWriter(port: NonNullable<typeof parentPort>, data: WriterData): Promise<void> {
  const chain = await newChain(createLocalDeps(data.stack), data.firmId);
  for (let done = 0; done < data.warmUp; done += 4)
    await idealRound(chain, 'cross-instance', 4, 1_000_000 + done);
  let admitted = 0;
  let written = 0;
  let finishing = false;
  let wake: (() => void) | undefined;
  port.on('message', (message: ToWriter) => {
    if (message.kind === 'admitted') admitted++;
    else finishing = true;
    wake?.();
  });
  port.postMessage({ kind: 'ready' } satisfies FromWriter);
  try {
    while (!finishing || written < admitted) {
      if (written === admitted) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      const count = admitted - written;
      await idealRound(chain, 'cross-instance', count, written);
      written += count;
    }
    port.postMessage({ kind: 'finished', written } satisfies FromWriter);
  } catch (error) {
    port.postMessage({ kind: 'failed', error: String(error) } satisfies FromWriter);
  }
}

if (!isMainThread && (workerData as WriterData | undefined)?.entry === import.meta.url)
  await runWriter(parentPort!, workerData as WriterData);
