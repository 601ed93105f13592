import { createLocalDeps } from '../../shared/runtime/local-deps.js';
import { send } from '../../shared/store/dynamo.js';
import { keys } from '../../shared/store/keys.js';
import { startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import { until } from '../support/until.js';
import { call, chainOf, expectSoundChain, incidentBody, onboardFirm } from '../support/stack-client.js';

/**
 * Fair per-firm limits (issue 19, part 6), the concurrency cap: at most FIRM_WRITE_CONCURRENCY of a firm's
 * ledger-writing requests in flight at once, across instances; one more is 429 RATE_LIMITED with nothing written
 * and no token taken, and a slot comes back when its request is answered (or, for a request that died with its
 * instance, when its lease runs out). A bucket large enough never to refuse, so every 429 here is the cap's;
 * slow Signs (SIGNER_LATENCY_MS) keep a write in flight for as long as a test needs it there.
 */

const SIGN_MS = 1500;

/** Resolves once the firm's write bucket holds a slot whose lease has not run out (a request took it). */
async function slotTaken(stack: RunningStack, firmId: string): Promise<void> {
  const deps = createLocalDeps(stack);
  await until(
    'the request to take its write slot',
    async () => {
      const { Item } = await send(deps.db, 'Get', {
        TableName: deps.tables.main,
        Key: keys.writeBucket(firmId),
        ConsistentRead: true,
      });
      const leases = Object.entries(Item ?? {}).filter(([name]) => /^slot\d+$/.test(name));
      return leases.some(([, until]) => Number(until) > Date.now()) ? true : undefined;
    },
    { timeoutMs: 20_000, everyMs: 50 },
  );
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectCapRefusal(response: { status: number; body: any; headers: Headers }) {
  expect(response.status).toBe(429);
  expect(response.body.error).toMatchObject({ code: 'RATE_LIMITED' });
  expect(response.body.error.message).toMatch(/in flight \(at most 1 at once\)/);
  expect(response.headers.get('retry-after')).toBe('1');
  // The bucket was not drawn from: its tokens are all still there.
  expect(response.headers.get('ratelimit')).toBe('"firm-writes";r=1000;t=1');
}

describe('per-firm concurrency cap (FIRM_WRITE_CONCURRENCY=1, LOCAL_INSTANCES=4)', () => {
  let stack: RunningStack;

  beforeAll(async () => {
    stack = await startStack({
      instances: 4,
      env: {
        FIRM_WRITE_RATE_PER_S: '1000',
        FIRM_WRITE_BURST: '1000',
        FIRM_WRITE_CONCURRENCY: '1',
        // Long enough that only giving a slot back (never its lease running out) frees it during a test.
        FIRM_WRITE_SLOT_SECONDS: '600',
        SIGNER_LATENCY_MS: String(SIGN_MS),
      },
    });
  });

  afterAll(async () => {
    await stopStack(stack, { removeData: true });
  });

  it('refuses a second write while the first is in flight on another instance, then admits the next', async () => {
    const firm = await onboardFirm(stack);
    const other = await onboardFirm(stack);
    const recordsBefore = (await chainOf(stack, firm.key)).length;

    const first = call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(1) });
    await pause(SIGN_MS / 2);
    const second = await call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(2) });
    expectCapRefusal(second);
    const told = Date.now();
    // Told to wait a second, the key is refused again within it, whatever the instance (from memory on the one
    // that refused it, by the cap elsewhere).
    expectCapRefusal(await call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(5) }));
    // Another firm's slot is its own.
    const elsewhere = await call(stack, 'POST', '/v1/incidents', { key: other.key, body: incidentBody(3) });
    expect(elsewhere.status).toBe(201);

    const answered = await first;
    expect(answered.status).toBe(201);
    expect(answered.headers.get('x-local-instance')).not.toBe(second.headers.get('x-local-instance'));
    // The slot came back with the answer: once the Retry-After it was told has passed, the key writes again.
    await pause(told + 1000 - Date.now());
    const next = await call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(4) });
    expect(next.status).toBe(201);

    const chain = await chainOf(stack, firm.key);
    expect(chain.map((r) => r.documentMetadata.title).slice(recordsBefore)).toEqual([
      'Incident 1',
      'Incident 4',
    ]);
  });

  it('gives the slot back when the request is refused after taking it (its media type)', async () => {
    const firm = await onboardFirm(stack);
    const refused = await call(stack, 'POST', '/v1/incidents', {
      key: firm.key,
      raw: JSON.stringify(incidentBody(1)),
      headers: { 'content-type': 'text/plain' },
    });
    expect(refused.status).toBe(415);
    // Had it kept its slot (for the 600 s lease), this would be refused by the cap.
    const next = await call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(2) });
    expect(next.status).toBe(201);
  });
});

describe('a slot whose request died with the whole stack', () => {
  let second: RunningStack | undefined;

  afterAll(async () => {
    if (second) await stopStack(second, { removeData: true });
  });

  it('is held until its lease runs out, then free again', async () => {
    // The default lease (FIRM_WRITE_SLOT_SECONDS unset): long enough for the restart to come well within it.
    const LEASE_S = 30;
    const limits = { FIRM_WRITE_RATE_PER_S: '1000', FIRM_WRITE_BURST: '1000', FIRM_WRITE_CONCURRENCY: '1' };
    const first = await startStack({
      instances: 2,
      env: { ...limits, SIGNER_LATENCY_MS: '5000' },
    });
    const firm = await onboardFirm(first);
    const taken = Date.now();
    void call(first, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(1) }).catch(
      () => undefined,
    );
    // Killed once the request holds its slot (then it waits 5 s for its Sign): on a loaded machine the request's
    // cold start alone can take longer than any fixed pause.
    await slotTaken(first, firm.firmId);
    process.kill(first.pid, 'SIGKILL');
    await new Promise<void>((exited) =>
      first.child.exitCode !== null ? exited() : first.child.once('exit', () => exited()),
    );

    second = await startStack({ dataDir: first.dataDir, instances: 2, env: limits });
    const restarted = second;
    expect(Date.now() - taken).toBeLessThan(LEASE_S * 1000);
    expectCapRefusal(
      await call(restarted, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(2) }),
    );

    let admittedAt = 0;
    for (let attempt = 0; attempt < 2 * LEASE_S && !admittedAt; attempt++) {
      await pause(1000);
      const response = await call(restarted, 'POST', '/v1/incidents', {
        key: firm.key,
        body: incidentBody(3),
      });
      if (response.status === 201) admittedAt = Date.now();
      else expectCapRefusal(response);
    }
    // Free again once the lease ran out, and not before (its start is at most a second after `taken`).
    expect(admittedAt).toBeGreaterThan(0);
    expect(admittedAt - taken).toBeGreaterThanOrEqual(LEASE_S * 1000);
    expectSoundChain(await chainOf(restarted, firm.key));
  }, 180_000);
});
