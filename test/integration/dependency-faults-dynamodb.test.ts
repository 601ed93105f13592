import {
  BOUND_MS,
  INSTANCES,
  dynamoPid,
  expectBoundedAnswers,
  expectNothingLost,
  healthOk,
  underLoad,
} from '../support/faults-under-load.js';
import { startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import { call, incidentBody, onboardFirm, verifyChain } from '../support/stack-client.js';
import { until } from '../support/until.js';

/**
 * Issue 32, DynamoDB Local stalled (SIGSTOP) and killed (SIGKILL) under load: real signals to the real process the
 * embedded stack supervises. test/support/faults-under-load.ts says what must hold; the in-process dependencies'
 * faults are in dependency-faults-fakes.test.ts.
 */

let stack: RunningStack;

beforeAll(async () => {
  stack = await startStack({ instances: INSTANCES });
});

afterAll(async () => {
  await stopStack(stack, { removeData: true });
});

describe('DynamoDB faults under load (issue 32)', () => {
  it('DynamoDB Local stopped (SIGSTOP) for a few seconds: bounded answers, nothing lost, the chain verifies', async () => {
    const firm = await onboardFirm(stack);
    const answers = await underLoad(stack, firm, 'dbstop', async () => {
      const pid = dynamoPid(stack);
      process.kill(pid, 'SIGSTOP');
      try {
        const started = Date.now();
        const { status, body } = await call(stack, 'GET', '/health');
        expect(Date.now() - started).toBeLessThan(BOUND_MS);
        expect(status).toBe(503);
        expect(body.dependencies.database).toBe('failing');
        await new Promise((resolve) => setTimeout(resolve, 4_000));
      } finally {
        process.kill(pid, 'SIGCONT');
      }
    });
    expectBoundedAnswers(answers, { writes: true, reads: true });
    await until('health', () => healthOk(stack));
    await expectNothingLost(stack, firm, answers);
    const { done } = await verifyChain(stack, firm.key);
    expect(done.result).toMatchObject({ complete: true, valid: true, brokenCount: 0 });
  });

  it('DynamoDB Local killed (SIGKILL): restarted by the stack, the service recovers, nothing acknowledged lost', async () => {
    const firm = await onboardFirm(stack);
    const before = dynamoPid(stack);
    const answers = await underLoad(stack, firm, 'dbkill', async () => {
      process.kill(before, 'SIGKILL');
      await until('a new DynamoDB Local', async () => {
        const pid = dynamoPid(stack);
        return pid && pid !== before ? pid : undefined;
      });
      await until('health', () => healthOk(stack));
    });
    expectBoundedAnswers(answers, { writes: true, reads: true });
    const metrics = (await (await fetch(`${stack.baseUrl}/__local/metrics`)).json()) as {
      dynamoRestarts: number;
    };
    expect(metrics.dynamoRestarts).toBeGreaterThanOrEqual(1);
    const after = await call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(9_999) });
    expect(after.status).toBe(201);
    await expectNothingLost(stack, firm, answers);
    // A JVM restarted on a loaded 2-core machine, then every refused write retried: longer than the default.
  }, 240_000);
});
