import { localMetrics, startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import {
  call,
  chainOf,
  expectSoundChain,
  incidentBody,
  onboardFirm,
  verifyChain,
} from '../support/stack-client.js';

/**
 * The embedded stack run like Lambda (LOCAL_INSTANCES): isolated instances, one invocation each at a time, queue
 * workers on instances too, one Sign quota and one set of Sign counters across all of them.
 */

describe('LOCAL_INSTANCES=4', () => {
  let stack: RunningStack;
  let firm: { firmId: string; key: string };

  beforeAll(async () => {
    // Each Sign takes 300 ms, so concurrent appends keep their instances busy long enough to overlap; the
    // inline verification limit is low, so a verification continues on the integrity-verify queue. Checkpoints
    // off: the Sign counts below are the records' (checkpoint Signs share the stack's counter).
    stack = await startStack({
      instances: 4,
      env: { SIGNER_LATENCY_MS: '300', VERIFY_INLINE_MAX_RECORDS: '5', CHECKPOINT_INTERVAL_MS: '0' },
    });
    firm = await onboardFirm(stack);
  });

  afterAll(async () => {
    await stopStack(stack, { removeData: true });
  });

  it('serves concurrent requests on several instances and counts every Sign across them', async () => {
    const before = await localMetrics(stack);
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(n) }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(201));
    const served = new Set(responses.map((r) => r.headers.get('x-local-instance')));
    for (const instance of served) expect(['0', '1', '2', '3']).toContain(instance);
    // An instance runs one invocation at a time: slow appends arriving together cannot all share one.
    expect(served.size).toBeGreaterThan(1);

    const after = await localMetrics(stack);
    expect(after.signCalls - before.signCalls).toBe(8);
    expect(after.signThrottled).toBe(0);
    expectSoundChain(await chainOf(stack, firm.key));
  });

  it('runs queue workers on instances: a verification sent to the integrity-verify queue completes', async () => {
    const chain = await chainOf(stack, firm.key);
    expect(chain.length).toBeGreaterThan(5);
    const { started, done } = await verifyChain(stack, firm.key);
    // The verify call (on an instance) checked 5 records and queued the rest from there.
    expect(started.result.complete).toBe(false);
    expect(done.result).toMatchObject({ complete: true, valid: true, brokenCount: 0 });
    expect(done.result.recordsChecked).toBeGreaterThanOrEqual(chain.length);
  });

  it("serves callers in turn when every instance is busy: one firm's backlog does not queue another's request", async () => {
    const other = await onboardFirm(stack);
    let finished = 0;
    const appends = Array.from({ length: 16 }, (_, n) =>
      call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(100 + n) }).then((r) => {
        finished += 1;
        return r;
      }),
    );
    // The appends take the four instances (a Sign takes 300 ms) and twelve wait; then the other firm reads.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const read = await call(stack, 'GET', '/v1/incidents', { key: other.key });
    const finishedBeforeRead = finished;
    expect(read.status).toBe(200);
    expect((await Promise.all(appends)).map((r) => r.status)).toEqual(Array(16).fill(201));
    // First come, first served, the read would start only after thirteen appends ended (the twelve ahead of it
    // each need a freed instance, then the read does); served in turn, it takes the second instance freed.
    expect(finishedBeforeRead).toBeLessThanOrEqual(8);
    expectSoundChain(await chainOf(stack, firm.key));
  });

  it('shuts down cleanly on SIGTERM, instances and all', async () => {
    expect(await stopStack(stack)).toBe(0);
  });
});

describe('a Sign quota that binds (SIGNER_RATE_LIMIT=1)', () => {
  let stack: RunningStack;

  beforeAll(async () => {
    stack = await startStack({
      instances: 4,
      // Checkpoints off: the burst alone meets the quota (checkpoint Signs would draw on it too).
      env: { SIGNER_RATE_LIMIT: '1', SIGNER_DEADLINE_MS: '300', CHECKPOINT_INTERVAL_MS: '0' },
    });
  });

  afterAll(async () => {
    await stopStack(stack, { removeData: true });
  });

  it('answers a burst of appends 201 or 503 with Retry-After, never 500, and leaves no gap', async () => {
    const firm = await onboardFirm(stack);
    // 24 appends need 24 s of a 1-a-second quota: it binds however slowly the burst goes through. (16 against 2 a
    // second did not bind once: on a loaded machine, instances loading their modules spread the burst over 8 s.)
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, n) =>
        call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(n) }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s !== 201 && s !== 503)).toEqual([]);
    expect(statuses).toContain(201);
    const refused = responses.filter((r) => r.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const response of refused) {
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(response.body).toEqual({
        error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String), requestId: expect.any(String) },
      });
    }
    expect((await localMetrics(stack)).signThrottled).toBeGreaterThan(0);

    const chain = await chainOf(stack, firm.key);
    expectSoundChain(chain);
    // Every acknowledged incident has its record in the chain.
    const logged = new Set(chain.map((r) => r.documentMetadata.incidentId));
    for (const response of responses.filter((r) => r.status === 201))
      expect(logged).toContain(response.body.id);
  });
});
