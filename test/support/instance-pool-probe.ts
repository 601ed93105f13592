/**
 * Drives an InstancePool with the probe handler (fixtures/probe-handler.ts) and prints what it saw as one JSON
 * line; run under tsx by test/unit/adapters/instance-pool.test.ts, as bin/local.ts runs the pool.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InstancePool } from '../../shared/adapters/local/instance-pool.js';
import { SignerQuota } from '../../shared/adapters/local/signer-quota.js';
import { ROOT } from './local-stack.js';

const MODULE = 'test/support/fixtures/probe-handler';
const sent: unknown[] = [];

function pool(routes: number, freeze: boolean, workers = 1): InstancePool {
  return new InstancePool(
    { route: routes, worker: workers },
    {
      root: ROOT,
      dataDir: mkdtempSync(join(tmpdir(), 'gls-pool-')),
      dynamoEndpoint: 'http://127.0.0.1:9',
      baseUrl: 'http://localhost:9',
      signerQuota: SignerQuota.create(0).buffer,
    },
    async (queue, message, delaySeconds) => {
      sent.push({ queue, message, delaySeconds });
    },
    { freeze },
  );
}

const two = pool(2, false);
await two.start();
const concurrent = await Promise.all(
  Array.from({ length: 6 }, (_, n) => two.invoke(MODULE, 'probe', { sleepMs: 30, send: n === 0 }, 'route')),
);
const idleA = (await two.invoke(MODULE, 'probe', {}, 'route')).value as { ticks: number };
await new Promise((resolve) => setTimeout(resolve, 300));
const idleB = (await two.invoke(MODULE, 'probe', {}, 'route')).value as { ticks: number };
const stats = two.stats();
await two.close();

// Kinds apart: one route instance busy with two slow requests, while a worker invocation runs on its own.
const split = pool(1, false, 1);
await split.start();
const finished: string[] = [];
const kinds = await Promise.all([
  split.invoke(MODULE, 'probe', { sleepMs: 150 }, 'route').then((r) => (finished.push('route1'), r.instance)),
  split.invoke(MODULE, 'probe', { sleepMs: 150 }, 'route').then((r) => (finished.push('route2'), r.instance)),
  split.invoke(MODULE, 'probe', { sleepMs: 10 }, 'worker').then((r) => (finished.push('worker'), r.instance)),
]);
await split.close();

// Fair dispatch: one instance, five requests of credential A queued, then one of credential B.
const one = pool(1, false);
await one.start();
const served: string[] = [];
const request = (who: string, n: number) =>
  one
    .invoke(MODULE, 'probe', { headers: { 'x-service-key': who }, sleepMs: 20 }, 'route')
    .then(() => served.push(`${who}${n}`));
await Promise.all([1, 2, 3, 4, 5].map((n) => request('A', n)).concat(request('B', 1)));
await one.close();

const frozen = pool(1, true);
await frozen.start();
const frozenA = (await frozen.invoke(MODULE, 'probe', {}, 'route')).value as { ticks: number };
await new Promise((resolve) => setTimeout(resolve, 300));
const frozenB = (await frozen.invoke(MODULE, 'probe', {}, 'route')).value as { ticks: number };
await frozen.close();

console.log(
  JSON.stringify({
    concurrent: concurrent.map((r) => ({ instance: r.instance, ...(r.value as object) })),
    sent,
    served,
    kinds: { instances: kinds, finished },
    ticksWhileIdle: idleB.ticks - idleA.ticks,
    ticksWhileFrozen: frozenB.ticks - frozenA.ticks,
    stats,
  }),
);
