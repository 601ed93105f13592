import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { InstancePool } from '../../../shared/adapters/local/instance-pool.js';
import { ROOT } from '../../support/local-stack.js';

interface Probe {
  concurrent: { instance: number; calls: number; mostAtOnce: number }[];
  sent: { queue: string; message: { from: string }; delaySeconds: number }[];
  served: string[];
  kinds: { instances: number[]; finished: string[] };
  ticksWhileIdle: number;
  ticksWhileFrozen: number;
  stats: ReturnType<InstancePool['stats']>;
}

/** The pool runs in worker threads under tsx, as in `npm start`: the probe script drives it in its own process. */
function probe(): Probe {
  const result = spawnSync(join(ROOT, 'node_modules/.bin/tsx'), ['test/support/instance-pool-probe.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`The probe printed nothing (exit ${result.status}):\n${result.stderr}`);
  return JSON.parse(line) as Probe;
}

describe('InstancePool (LOCAL_INSTANCES)', () => {
  const seen = probe();

  it('runs one invocation per instance at a time, on several isolated instances', () => {
    expect(seen.concurrent).toHaveLength(6);
    for (const run of seen.concurrent) expect(run.mostAtOnce).toBe(1);
    expect(new Set(seen.concurrent.map((r) => r.instance))).toEqual(new Set([0, 1]));
    // Module state is each instance's own: the highest call count seen on each adds up to the calls made.
    const highest = [0, 1].map((i) =>
      Math.max(...seen.concurrent.filter((r) => r.instance === i).map((r) => r.calls)),
    );
    expect(highest[0]! + highest[1]!).toBe(6);
  });

  it("reports what waits and, with answers, each instance's heap (GET /__local/memory)", () => {
    expect(seen.stats.waiting).toEqual({ route: 0, worker: 0 });
    expect(seen.stats.busy).toBe(0);
    // The two route instances answered (the worker instance ran nothing, so it has not reported yet).
    const routes = seen.stats.instances.filter((instance) => instance.kind === 'route');
    expect(routes).toHaveLength(2);
    for (const { heap } of routes) {
      expect(heap).toEqual(
        expect.objectContaining({
          used: expect.any(Number),
          total: expect.any(Number),
          newSpace: expect.any(Number),
        }),
      );
      expect(heap!.used).toBeLessThanOrEqual(heap!.total);
    }
  });

  it("forwards an instance's queue sends to the main thread's queue", () => {
    expect(seen.sent).toEqual([{ queue: 'webhooks', message: { from: 'probe', calls: 1 }, delaySeconds: 0 }]);
  });

  it("serves waiting credentials in turn: one credential's backlog does not queue another's request", () => {
    // A1 ran; A2..A5 then B1 waited. FIFO would serve B1 last; in turn, B1 follows A2.
    expect(seen.served).toEqual(['A1', 'A2', 'B1', 'A3', 'A4', 'A5']);
  });

  it('runs routes and workers on instances of their own kind, as route and worker functions scale apart in AWS', () => {
    // Instances are numbered routes first: the route instance 0 ran both requests, one after the other, and the
    // worker invocation did not wait for either (it finished first) nor took the route instance.
    expect(seen.kinds.instances).toEqual([0, 0, 1]);
    expect(seen.kinds.finished).toEqual(['worker', 'route1', 'route2']);
  });

  it('freezes an instance between invocations only when asked to, as Lambda does', () => {
    // A 5 ms interval ran on through 300 ms idle (dozens of runs; fewer on a loaded machine); frozen, it stood
    // still: at most one run that fell due between the answer and the freeze, and its one overdue run on thaw.
    expect(seen.ticksWhileIdle).toBeGreaterThan(5);
    expect(seen.ticksWhileFrozen).toBeLessThanOrEqual(2);
  });
});
