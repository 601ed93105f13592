import { checkpointKeyAt, checkpointKeyWindows } from '../../../shared/ledger/key-history.js';
import { checkpointPolicy, reserveSlot } from '../../../shared/services/log-checkpoint-budget.js';
import { leafData } from '../../../shared/services/log-integrator.js';

describe('the account checkpoint Sign budget', () => {
  it('turns Signs per second into checkpoints per second (2 Signs each), none for 0', () => {
    expect(checkpointPolicy(20)).toEqual({ ratePerSecond: 10, burst: 10 });
    expect(checkpointPolicy(1)).toEqual({ ratePerSecond: 0.5, burst: 1 });
    expect(checkpointPolicy(0)).toBeUndefined();
  });

  it('hands out a burst at once, then one slot per token: the interval stretches, nothing is refused', () => {
    const policy = { ratePerSecond: 2, burst: 2 }; // one token every 500 ms
    const now = 1_000_000_000;
    let tat: number | undefined;
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { nextTat, readyAt } = reserveSlot(policy, now, tat);
      waits.push((readyAt - now) / 1000);
      tat = nextTat;
    }
    expect(waits).toEqual([0, 0, 500, 1000, 1500]);
    // Once time catches up the bucket refills.
    expect(reserveSlot(policy, now + 10_000_000, tat).readyAt).toBe(now + 10_000_000);
  });
});

describe('leaf data', () => {
  it('is the 32 bytes of a 64-hex chainHash; anything else is no leaf (a damaged row stops the log)', () => {
    expect(leafData('ab'.repeat(32))).toEqual(new Uint8Array(32).fill(0xab));
    expect(leafData('AB'.repeat(32))).toBeUndefined();
    expect(leafData('ab'.repeat(31))).toBeUndefined();
    expect(leafData(42)).toBeUndefined();
    expect(leafData(undefined)).toBeUndefined();
  });
});

describe('checkpoint key windows', () => {
  it('runs each key from its registration to the next one’s, and finds the key valid at an instant', () => {
    const windows = checkpointKeyWindows([
      { publicKey: 'b', validFrom: '2026-06-01T00:00:00.000Z' },
      { publicKey: 'a', validFrom: '2026-01-01T00:00:00.000Z' },
      { publicKey: 'a', validFrom: '2026-01-01T00:00:00.020Z' },
    ]);
    expect(windows.map((w) => [w.publicKey, w.validFrom, w.validUntil])).toEqual([
      ['a', '2026-01-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z'],
      ['b', '2026-06-01T00:00:00.000Z', null],
    ]);
    expect(checkpointKeyAt(windows, '2026-05-31T23:59:59.999Z')?.publicKey).toBe('a');
    expect(checkpointKeyAt(windows, '2026-06-01T00:00:00.000Z')?.publicKey).toBe('b');
    expect(checkpointKeyAt(windows, '2025-12-31T00:00:00.000Z')).toBeUndefined();
  });
});
