import { describe, expect, it } from '@jest/globals';
import { firstLookAfter } from '../../../shared/ledger-writer/sequencer.js';

describe('firstLookAfter: when an asker first looks for its record', () => {
  it('looks sooner after finding its record at the first look (it may have waited past the commit)', () => {
    expect(firstLookAfter(100, 1, 0)).toBe(80);
  });

  it('keeps the wait when the record turned up at the second look', () => {
    expect(firstLookAfter(100, 2, 5)).toBe(100);
  });

  it('waits longer by half of how late the record was after more looks', () => {
    expect(firstLookAfter(40, 5, 60)).toBe(70);
  });

  it('converges below a steady commit delay instead of settling far above it', () => {
    // Records turn up 80 ms after the intent; looks come 5, 10, 15, ... ms after the first.
    const commitAfter = 80;
    let wait = 20;
    const waits: number[] = [];
    for (let i = 0; i < 60; i++) {
      let at = wait;
      let looks = 1;
      for (let step = 1; at < commitAfter; step++, looks++) at += 5 * step;
      wait = firstLookAfter(wait, looks, at - wait);
      waits.push(wait);
    }
    const settled = waits.slice(-20);
    expect(Math.max(...settled)).toBeLessThanOrEqual(commitAfter + 15);
    expect(Math.min(...settled)).toBeGreaterThanOrEqual(commitAfter / 2);
  });

  it('stays within 5..200 ms', () => {
    expect(firstLookAfter(5, 1, 0)).toBe(5);
    expect(firstLookAfter(190, 9, 400)).toBe(200);
  });
});
