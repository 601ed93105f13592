import { PLAN_WRITE_LIMITS } from '../../../shared/domain/rate-limit/plan-limits.js';
import {
  admitted,
  nextStep,
  notDrawn,
  refillSeconds,
  refusalHoldUntil,
  refused,
  tokenMicros,
  type WritePolicy,
} from '../../../shared/domain/rate-limit/token-bucket.js';
import { PLANS } from '../../../shared/domain/firm/plans.js';

const S = 1_000_000;
const policy: WritePolicy = { ratePerSecond: 2, burst: 3 };
const T0 = 1_764_000_000 * S;

/** Runs requests at the given times through the bucket as the store would, returning each verdict. */
function simulate(p: WritePolicy, times: number[]) {
  let tat: number | undefined;
  return times.map((now) => {
    const step = nextStep(p, now, tat);
    if (step.kind === 'refuse') return refused(p, now, step.tat);
    tat = step.kind === 'refill' ? step.nextTat : tat! + step.add;
    return admitted(p, now, tat);
  });
}

describe('token bucket (GCRA form)', () => {
  it('takes a token as a whole number of microseconds', () => {
    expect(tokenMicros(policy)).toBe(500_000);
    expect(tokenMicros({ ratePerSecond: 3, burst: 1 })).toBe(333_333);
    expect(tokenMicros({ ratePerSecond: 0.001, burst: 1 })).toBe(1_000 * S);
  });

  it('starts full: a fresh or idle bucket is refilled to now + T', () => {
    expect(nextStep(policy, T0, undefined)).toEqual({ kind: 'refill', now: T0, nextTat: T0 + S / 2 });
    expect(nextStep(policy, T0, T0 - 10 * S)).toEqual({ kind: 'refill', now: T0, nextTat: T0 + S / 2 });
    expect(nextStep(policy, T0, T0)).toMatchObject({ kind: 'refill' });
  });

  it('takes while the bucket is partly used, up to the ceiling of burst − 1 tokens ahead', () => {
    expect(nextStep(policy, T0, T0 + 1)).toEqual({ kind: 'take', now: T0, add: S / 2, ceiling: T0 + S });
    expect(nextStep(policy, T0, T0 + S)).toMatchObject({ kind: 'take' });
    expect(nextStep(policy, T0, T0 + S + 1)).toEqual({ kind: 'refuse', tat: T0 + S + 1 });
  });

  it('allows exactly the burst at once, then refuses with the time until the next token', () => {
    const verdicts = simulate(policy, [T0, T0, T0, T0, T0]);
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false, false]);
    expect(verdicts.map((v) => v.remaining)).toEqual([2, 1, 0, 0, 0]);
    // One token per 0.5 s, rounded up to whole seconds and never 0.
    expect(verdicts.map((v) => v.nextTokenSeconds)).toEqual([1, 1, 1, 1, 1]);
  });

  it('refills at the rate: one more token every T, never more than the burst', () => {
    const drained = [T0, T0, T0];
    expect(simulate(policy, [...drained, T0 + S / 2 - 1]).at(-1)!.allowed).toBe(false);
    expect(simulate(policy, [...drained, T0 + S / 2]).at(-1)).toEqual({
      allowed: true,
      remaining: 0,
      nextTokenSeconds: 1,
    });
    // After a long pause the bucket holds burst tokens, not more.
    const later = T0 + 3600 * S;
    const after = simulate(policy, [...drained, later, later, later, later]).slice(3);
    expect(after.map((v) => v.allowed)).toEqual([true, true, true, false]);
  });

  it('sustains exactly the rate: requests every T are all allowed, faster ones are refused once the burst is used', () => {
    const everyT = Array.from({ length: 50 }, (_, i) => T0 + i * (S / 2));
    expect(simulate(policy, everyT).every((v) => v.allowed)).toBe(true);
    const twiceAsFast = Array.from({ length: 50 }, (_, i) => T0 + i * (S / 4));
    const allowed = simulate(policy, twiceAsFast).filter((v) => v.allowed).length;
    // 12.25 s at 2/s plus the burst of 3, give or take the token in flight.
    expect(allowed).toBeGreaterThanOrEqual(27);
    expect(allowed).toBeLessThanOrEqual(28);
  });

  it('reports Retry-After in whole seconds, at least 1, until the request would be allowed', () => {
    const slow: WritePolicy = { ratePerSecond: 0.1, burst: 2 };
    const verdicts = simulate(slow, [T0, T0, T0, T0 + 4 * S]);
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, false, false]);
    expect(verdicts[2]!.nextTokenSeconds).toBe(10);
    expect(verdicts[3]!.nextTokenSeconds).toBe(6);
    // Just before the token: still at least one second.
    expect(refused(slow, T0 + 10 * S - 1, T0 + 20 * S).nextTokenSeconds).toBe(1);
  });

  it('counts the remaining whole tokens and the seconds to the next one after a partial refill', () => {
    const slow: WritePolicy = { ratePerSecond: 0.5, burst: 5 };
    // Drain 5 at T0 (tat = T0 + 10 s), then 3 s later 1.5 tokens are back: take one, 0.5 left, 1 s to the next.
    const verdicts = simulate(slow, [T0, T0, T0, T0, T0, T0 + 3 * S]);
    expect(verdicts.at(-1)).toEqual({ allowed: true, remaining: 0, nextTokenSeconds: 1 });
  });

  it('names the policy window as the time a drained bucket takes to fill', () => {
    expect(refillSeconds(policy)).toBe(2);
    expect(refillSeconds({ ratePerSecond: 20, burst: 40 })).toBe(2);
    expect(refillSeconds({ ratePerSecond: 3, burst: 1 })).toBe(1);
    expect(refillSeconds({ ratePerSecond: 0.001, burst: 3 })).toBe(3000);
  });

  it('has a documented policy for every plan, each within the shared KMS quota', () => {
    for (const plan of PLANS) {
      const limit = PLAN_WRITE_LIMITS[plan];
      expect(limit.ratePerSecond).toBeGreaterThan(0);
      expect(limit.ratePerSecond).toBeLessThan(300);
      expect(limit.burst).toBeGreaterThanOrEqual(limit.ratePerSecond);
      // A cap that still lets twice the rate through at ~50 ms an append.
      expect(limit.concurrency! * (1000 / 50)).toBeGreaterThanOrEqual(2 * limit.ratePerSecond);
    }
  });
});

describe('notDrawn: a request the concurrency cap refused, the bucket untouched', () => {
  it('tells the whole tokens still in the bucket, and the soonest Retry-After', () => {
    // Never used: full. 2/s, burst 3: one token taken 0.25 s ago leaves 2.5 tokens, 2 whole.
    expect(notDrawn(policy, T0, T0 - S)).toEqual({ allowed: false, remaining: 3, nextTokenSeconds: 1 });
    expect(notDrawn(policy, T0, T0 + 0.25 * S)).toEqual({
      allowed: false,
      remaining: 2,
      nextTokenSeconds: 1,
    });
  });
});

describe('refusalHoldUntil: how long an instance may keep refusing a credential from memory', () => {
  it('holds until the Retry-After the client was told, while the bucket cannot fill before it', () => {
    // 2/s, burst 3, drained: tat 1.5 s ahead, next token in 0.5 s (Retry-After 1), full at tat.
    const tat = T0 + 1.5 * S;
    expect(refused(policy, T0, tat).nextTokenSeconds).toBe(1);
    expect(refusalHoldUntil(policy, T0, tat)).toBe(T0 + S);
  });

  it('never past the instant the bucket could be full again, so no token is wasted', () => {
    // 10/s, burst 1: the next token (and a full bucket) in 0.1 s, but Retry-After is a whole second.
    const fast: WritePolicy = { ratePerSecond: 10, burst: 1 };
    const tat = T0 + 0.1 * S;
    expect(refused(fast, T0, tat).nextTokenSeconds).toBe(1);
    expect(refusalHoldUntil(fast, T0, tat)).toBe(tat);
  });

  it('at a slow rate holds the whole Retry-After', () => {
    const slow: WritePolicy = { ratePerSecond: 0.001, burst: 3 };
    const tat = T0 + 3_000 * S;
    expect(refusalHoldUntil(slow, T0, tat)).toBe(T0 + refused(slow, T0, tat).nextTokenSeconds * S);
  });
});
