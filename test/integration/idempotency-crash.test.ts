import { startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import { call, chainOf, expectSoundChain, incidentBody, onboardFirm } from '../support/stack-client.js';

/**
 * Issue 19, part 3: the whole stack killed (SIGKILL) while 32 appends, each with its own Idempotency-Key, are
 * in flight over 8 Lambda-like instances, then restarted on the same DATA_DIR and every request retried with
 * its key until it is no longer in progress. Whatever the kill interrupted (a claim, an intent waiting for its
 * sequencer and committed later by the next holder, a commit whose answer was never kept), no key ever yields
 * a second record, and every retry answers the first answer, a fresh single write, or "committed" naming the
 * one record.
 */

const REQUESTS = 32;
const keyOf = (n: number) => `crash-${n}`;

describe('Idempotency-Key across a crash of the whole stack', () => {
  let second: RunningStack | undefined;

  afterAll(async () => {
    if (second) await stopStack(second, { removeData: true });
  });

  // Two stack starts with 8 instances each on a small machine: more than the default two minutes.
  it('never writes a second record for a key after a restart', async () => {
    const first = await startStack({
      instances: 8,
      env: { SIGNER_LATENCY_MS: '20', IDEMPOTENCY_LOCK_SECONDS: '5' },
    });
    const firm = await onboardFirm(first);
    const send = (stack: RunningStack, n: number) =>
      call(stack, 'POST', '/v1/incidents', {
        key: firm.key,
        headers: { 'idempotency-key': keyOf(n) },
        body: incidentBody(n),
      });

    const acknowledged = new Map<number, string>();
    let killed = false;
    await Promise.all(
      Array.from({ length: REQUESTS }, (_, n) =>
        send(first, n).then(
          (response) => {
            if (response.status !== 201) return;
            acknowledged.set(n, response.body.id as string);
            if (acknowledged.size === 6 && !killed) {
              killed = true;
              process.kill(first.pid, 'SIGKILL');
            }
          },
          () => undefined, // the connection died with the stack
        ),
      ),
    );
    expect(killed).toBe(true);
    expect(acknowledged.size).toBeLessThan(REQUESTS);
    await new Promise<void>((exited) =>
      first.child.exitCode !== null ? exited() : first.child.once('exit', () => exited()),
    );

    // A short lock, so a dead request's claim runs out in seconds (the lock bounds only how soon, never how often).
    second = await startStack({
      dataDir: first.dataDir,
      instances: 8,
      env: { IDEMPOTENCY_LOCK_SECONDS: '5' },
    });
    const restarted = second;
    // Retry every key until its first request is no longer in progress (a dead claim's lock runs out).
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, n) => {
        for (let attempt = 0; ; attempt++) {
          const response = await send(restarted, n);
          if (!(response.status === 409 && response.headers.get('retry-after'))) return response;
          if (attempt > 120) throw new Error(`Key ${keyOf(n)} still in progress`);
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }),
    );

    const chain = await chainOf(restarted, firm.key);
    expectSoundChain(chain);
    const recordsOf = (n: number) => chain.filter((r) => r.documentMetadata.title === `Incident ${n}`);
    const outcomes = { replayed: 0, fresh: 0, committedWithoutAnswer: 0 };
    for (let n = 0; n < REQUESTS; n++) {
      const response = answers[n]!;
      const records = recordsOf(n);
      expect({ key: keyOf(n), records: records.length }).toEqual({ key: keyOf(n), records: 1 });
      if (response.status === 201) {
        expect(records[0]!.documentMetadata.incidentId).toBe(response.body.id);
        if (acknowledged.has(n)) expect(response.body.id).toBe(acknowledged.get(n));
        if (response.headers.get('idempotent-replayed') === 'true') outcomes.replayed += 1;
        else outcomes.fresh += 1;
      } else {
        // Committed (by the killed stack, or by the next holder from an intent it left) but never answered.
        expect(response.status).toBe(409);
        expect(response.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
        expect(response.body.error.message).toContain(records[0]!.id);
        expect(acknowledged.has(n)).toBe(false);
        outcomes.committedWithoutAnswer += 1;
      }
    }
    expect(outcomes.replayed).toBeGreaterThanOrEqual(acknowledged.size);
    // A second round of retries changes nothing.
    const again = await Promise.all(Array.from({ length: REQUESTS }, (_, n) => send(restarted, n)));
    for (const [n, response] of again.entries()) expect(response.status).toBe(answers[n]!.status);
    expect((await chainOf(restarted, firm.key)).length).toBe(chain.length);
  }, 300_000);
});
