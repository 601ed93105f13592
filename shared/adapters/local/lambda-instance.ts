/**
 * Entry point of one Lambda-like instance of the embedded stack (a worker thread, started by
 * shared/adapters/local/instance-pool.ts). Like a Lambda execution environment it has its own module state, its
 * own composition root (DynamoDB client, signer, object store) and loads the handler modules itself, on first use
 * (its cold start); the main thread hands it one invocation at a time. Its queue sends go to the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { installDeps } from '../../runtime/deps.js';
import { createLocalDeps } from '../../runtime/local-deps.js';
import { logger } from '../../runtime/logger.js';
import {
  isolateHeap,
  serializeError,
  type FromInstance,
  type InstanceData,
  type ToInstance,
} from './instance-messages.js';
import { handlerModules } from './handler-modules.js';
import { InstanceQueue } from './instance-queue.js';
import { lambdaContext } from './local-queue.js';
import { SignerQuota } from './signer-quota.js';
import { FaultSwitch } from './fault-switch.js';
import { DynamoMeter } from './dynamo-meter.js';

const port = parentPort!;
const data = workerData as InstanceData;
logger.setLogLevel((process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | undefined) ?? 'WARN');
logger.appendKeys({ localInstance: data.index });

const queue = new InstanceQueue(port);
installDeps(
  createLocalDeps({
    dataDir: data.dataDir,
    dynamoEndpoint: data.dynamoEndpoint,
    baseUrl: data.baseUrl,
    queue,
    signerQuota: SignerQuota.attach(data.signerQuota),
    ...(data.faults ? { faults: FaultSwitch.attach(data.faults) } : {}),
    ...(data.dynamoMeter ? { dynamoMeter: DynamoMeter.attach(data.dynamoMeter) } : {}),
  }),
);

const handlerOf = handlerModules(data.root);

/** This isolate's heap, with an answer at most once a second (GET /__local/memory on the main thread). */
let heapSentAt = 0;
function heapNow(): ReturnType<typeof isolateHeap> | undefined {
  if (Date.now() - heapSentAt < 1000) return undefined;
  heapSentAt = Date.now();
  return isolateHeap();
}

async function invoke(message: Extract<ToInstance, { kind: 'invoke' }>): Promise<FromInstance> {
  try {
    const handler = await handlerOf(message.module);
    const value = await handler(message.event, lambdaContext(message.name));
    const heap = heapNow();
    return { kind: 'result', id: message.id, value, ...(heap ? { heap } : {}) };
  } catch (error) {
    const heap = heapNow();
    return { kind: 'failed', id: message.id, error: serializeError(error), ...(heap ? { heap } : {}) };
  }
}

// Lambda freezes an environment once its handler has answered: timers, sockets and promises left running (work
// after the response) stop until the next invocation. With a freeze gate this thread does the same: it blocks
// until the main thread bumps its cell for the next invocation.
const gate = data.freezeGate ? new Int32Array(data.freezeGate) : undefined;

port.on('message', (message: ToInstance) => {
  if (message.kind === 'queue-sent') {
    queue.answered(message);
    return;
  }
  const generation = gate ? Atomics.load(gate, data.index) : 0;
  void invoke(message).then((answer) => {
    port.postMessage(answer);
    if (gate) Atomics.wait(gate, data.index, generation);
  });
});
port.postMessage({ kind: 'ready' } satisfies FromInstance);
