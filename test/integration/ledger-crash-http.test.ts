import { createLocalDeps } from '../../shared/runtime/local-deps.js';
import { immutableFirmPrefix } from '../../shared/store/immutable-layout.js';
import { startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import {
  call,
  chainOf,
  expectSoundChain,
  incidentBody,
  onboardFirm,
  verifyChain,
} from '../support/stack-client.js';

/**
 * The whole stack killed (SIGKILL, every instance at once) while 64 appends to one firm are in flight over 8
 * Lambda-like instances, then restarted on the same DATA_DIR: no acknowledged append is lost, the chain is
 * gapless and sound, appends go on, the outbox sweep completes the immutable copies and verification is clean.
 */

describe('the whole stack killed mid-burst', () => {
  let second: RunningStack | undefined;

  afterAll(async () => {
    if (second) await stopStack(second, { removeData: true });
  });

  it('loses no acknowledged append, leaves no gap, and carries on after a restart', async () => {
    const first = await startStack({ instances: 8, env: { SIGNER_LATENCY_MS: '20' } });
    const firm = await onboardFirm(first);

    // Kill the stack's process (not the tsx launcher) once 16 appends are acknowledged: the rest are queued,
    // waiting as intents, being signed or committing.
    const acknowledged: string[] = [];
    let killed = false;
    await Promise.all(
      Array.from({ length: 64 }, (_, n) =>
        call(first, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(n) }).then(
          (response) => {
            if (response.status !== 201) return;
            acknowledged.push(response.body.id as string);
            if (acknowledged.length === 16 && !killed) {
              killed = true;
              process.kill(first.pid, 'SIGKILL');
            }
          },
          () => undefined, // the connection died with the stack: never acknowledged
        ),
      ),
    );
    expect(killed).toBe(true);
    expect(acknowledged.length).toBeLessThan(64);
    await new Promise<void>((exited) =>
      first.child.exitCode !== null ? exited() : first.child.once('exit', () => exited()),
    );

    // The same DATA_DIR: the dead stack's DynamoDB Local is stopped, its sequencer lease runs out.
    second = await startStack({
      dataDir: first.dataDir,
      instances: 8,
      env: { OUTBOX_SWEEP_INTERVAL_SECONDS: '1', OUTBOX_GRACE_SECONDS: '0' },
    });
    const chain = await chainOf(second, firm.key);
    expectSoundChain(chain);
    const logged = new Set(chain.map((r) => r.documentMetadata.incidentId));
    for (const id of acknowledged) expect(logged).toContain(id);

    const after = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        call(second!, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(100 + n) }),
      ),
    );
    expect(after.map((r) => r.status)).toEqual(Array(8).fill(201));
    const final = await chainOf(second, firm.key);
    expectSoundChain(final);
    const added = final.slice(chain.length);
    for (const response of after)
      expect(added.map((r) => r.documentMetadata.incidentId)).toContain(response.body.id);
    // Anything else committed now is an intent the killed stack's askers left pending (their requests died
    // unanswered): the next holder commits it, like any append whose response was lost.
    const answered = new Set([...acknowledged, ...after.map((r) => r.body.id as string)]);
    for (const record of added.filter((r) => !answered.has(r.documentMetadata.incidentId as string)))
      expect(Number(/^Incident (\d+)$/.exec(record.documentMetadata.title as string)?.[1])).toBeLessThan(64);

    // Records committed but never copied before the kill get their immutable copies from the outbox sweep.
    const deps = createLocalDeps(second);
    for (let i = 0; ; i++) {
      let copies = 0;
      for await (const key of deps.objects.list('immutable', immutableFirmPrefix(firm.firmId))) {
        void key;
        copies += 1;
      }
      if (copies === final.length) break;
      if (i > 150) throw new Error(`${copies} immutable copies for ${final.length} records`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const { done } = await verifyChain(second, firm.key);
    expect(done.result).toMatchObject({ complete: true, valid: true, brokenCount: 0 });
  });
});
