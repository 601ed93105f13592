import { freeSlot } from '../../../shared/domain/rate-limit/write-slots.js';

const NOW = 1_000_000;

describe("write slots: a firm's ledger-writing requests in flight, at most the cap", () => {
  it('gives the lowest-numbered slot with no lease', () => {
    expect(freeSlot(2, [], NOW)).toBe(0);
    expect(freeSlot(3, [NOW + 1, undefined, undefined], NOW)).toBe(1);
  });

  it('counts a lease that has ended as free: a crashed holder gives its slot back when its lease runs out', () => {
    expect(freeSlot(2, [NOW + 1, NOW], NOW)).toBe(1);
    expect(freeSlot(1, [NOW - 5], NOW)).toBe(0);
  });

  it('has none free while every slot below the cap is leased; leases beyond the cap do not count', () => {
    expect(freeSlot(2, [NOW + 1, NOW + 2], NOW)).toBeUndefined();
    // A cap lowered from 3 to 1: only slot 0 counts.
    expect(freeSlot(1, [undefined, NOW + 2, NOW + 3], NOW)).toBe(0);
  });
});
