import { IN_PROCESS_WAIT_MAX_MS, signingDecision } from '../../../shared/services/log-checkpoint-run.js';

describe("a checkpoint run's signing decision (grown tree, last checkpoint maybe younger than the interval)", () => {
  const now = 1_700_000_000_000;
  const farDeadline = now + 60_000;

  it('signs at once when there is no checkpoint yet or its interval is over', () => {
    expect(signingDecision(now, 0, farDeadline)).toEqual({ kind: 'sign' });
    expect(signingDecision(now, now, farDeadline)).toEqual({ kind: 'sign' });
    expect(signingDecision(now, now - 1, farDeadline)).toEqual({ kind: 'sign' });
  });

  it('waits in-process for a short rest of the interval instead of a whole-second queue delay', () => {
    expect(signingDecision(now, now + 1, farDeadline)).toEqual({ kind: 'wait', ms: 1 });
    expect(signingDecision(now, now + 350, farDeadline)).toEqual({ kind: 'wait', ms: 350 });
    expect(signingDecision(now, now + IN_PROCESS_WAIT_MAX_MS, farDeadline)).toEqual({
      kind: 'wait',
      ms: IN_PROCESS_WAIT_MAX_MS,
    });
  });

  it('re-queues, never early, when the rest is longer than a run waits or would pass its deadline', () => {
    expect(signingDecision(now, now + IN_PROCESS_WAIT_MAX_MS + 1, farDeadline)).toEqual({
      kind: 'requeue',
      delaySeconds: Math.ceil((IN_PROCESS_WAIT_MAX_MS + 1) / 1000),
    });
    expect(signingDecision(now, now + 350, now + 350)).toEqual({ kind: 'requeue', delaySeconds: 1 });
    expect(signingDecision(now, now + 10_000_000, farDeadline)).toEqual({
      kind: 'requeue',
      delaySeconds: 900,
    });
  });
});
