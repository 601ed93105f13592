import { wilsonInterval, rate } from '../../../../shared/domain/governance/stats.js';
import {
  daysOf,
  monthsBefore,
  monthsOf,
  parseBound,
  splitDays,
  splitPeriod,
  startOfIsoWeek,
  startOfUtcQuarter,
} from '../../../../shared/domain/governance/periods.js';

const t = (iso: string) => Date.parse(iso);

describe('rate', () => {
  it('divides, and is null (not 0) without data', () => {
    expect(rate(3, 12)).toBe(0.25);
    expect(rate(0, 0)).toBeNull();
  });
});

describe('wilsonInterval (95 %)', () => {
  it('matches the published interval for 5 of 10: [0.2366, 0.7634]', () => {
    const interval = wilsonInterval(5, 10)!;
    expect(interval.lower).toBeCloseTo(0.23659, 4);
    expect(interval.upper).toBeCloseTo(0.76341, 4);
  });

  it('stays inside [0, 1] at the extremes: 0 of 10 is [0, 0.2775], 10 of 10 is [0.7225, 1]', () => {
    expect(wilsonInterval(0, 10)!.lower).toBe(0);
    expect(wilsonInterval(0, 10)!.upper).toBeCloseTo(0.27753, 4);
    expect(wilsonInterval(10, 10)!.lower).toBeCloseTo(0.72247, 4);
    expect(wilsonInterval(10, 10)!.upper).toBe(1);
  });

  it('narrows with the sample: 50 of 100 is [0.4038, 0.5962]', () => {
    const interval = wilsonInterval(50, 100)!;
    expect(interval.lower).toBeCloseTo(0.40383, 4);
    expect(interval.upper).toBeCloseTo(0.59617, 4);
  });

  it('is null for an empty sample', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
  });
});

describe('parseBound', () => {
  it('reads a date-only from as the start and a date-only to as the last millisecond of the UTC day', () => {
    expect(parseBound('2026-03-31', 'from')).toBe(t('2026-03-31T00:00:00.000Z'));
    expect(parseBound('2026-03-31', 'to')).toBe(t('2026-03-31T23:59:59.999Z'));
  });

  it('keeps a date-time as given, honouring its offset', () => {
    expect(parseBound('2026-03-31T10:00:00+01:00', 'to')).toBe(t('2026-03-31T09:00:00.000Z'));
  });

  it('refuses impossible dates and text', () => {
    expect(parseBound('2026-02-30', 'from')).toBeNull();
    expect(parseBound('yesterday', 'to')).toBeNull();
  });
});

describe('calendar helpers', () => {
  it('finds the quarter start, the ISO week start and the same day months before', () => {
    expect(startOfUtcQuarter(t('2026-11-22T13:00:00Z'))).toBe(t('2026-10-01T00:00:00Z'));
    expect(startOfUtcQuarter(t('2026-01-01T00:00:00Z'))).toBe(t('2026-01-01T00:00:00Z'));
    // 2026-11-22 is a Sunday: its ISO week started on Monday 16 November.
    expect(startOfIsoWeek(t('2026-11-22T23:00:00Z'))).toBe(t('2026-11-16T00:00:00Z'));
    expect(startOfIsoWeek(t('2026-11-16T00:00:00Z'))).toBe(t('2026-11-16T00:00:00Z'));
    expect(monthsBefore(t('2026-11-22T10:00:00Z'), 12)).toBe(t('2025-11-22T10:00:00Z'));
    expect(monthsBefore(t('2026-03-31T10:00:00Z'), 1)).toBe(t('2026-02-28T10:00:00Z'));
  });

  it('lists the days and months a period touches', () => {
    const period = { from: t('2026-01-30T12:00:00Z'), to: t('2026-02-01T01:00:00Z') };
    expect(daysOf(period)).toEqual(['2026-01-30', '2026-01-31', '2026-02-01']);
    expect(monthsOf(period)).toEqual(['2026-01', '2026-02']);
    expect(monthsOf({ from: t('2025-12-15T00:00:00Z'), to: t('2026-01-01T00:00:00Z') })).toEqual([
      '2025-12',
      '2026-01',
    ]);
  });
});

describe('splitPeriod', () => {
  it('reads whole days only when the period starts at 00:00 and ends at 23:59:59.999', () => {
    expect(splitPeriod({ from: t('2026-01-01T00:00:00.000Z'), to: t('2026-01-31T23:59:59.999Z') })).toEqual({
      wholeDays: { first: '2026-01-01', last: '2026-01-31' },
      partial: [],
    });
  });

  it('splits partial edge days off, to the millisecond', () => {
    expect(splitPeriod({ from: t('2026-01-01T10:00:00.000Z'), to: t('2026-01-05T09:30:00.000Z') })).toEqual({
      wholeDays: { first: '2026-01-02', last: '2026-01-04' },
      partial: [
        { from: t('2026-01-01T10:00:00.000Z'), to: t('2026-01-01T23:59:59.999Z') },
        { from: t('2026-01-05T00:00:00.000Z'), to: t('2026-01-05T09:30:00.000Z') },
      ],
    });
  });

  it('reads a period inside one day (or across one midnight) job by job', () => {
    const inside = { from: t('2026-01-01T10:00:00.000Z'), to: t('2026-01-01T11:00:00.000Z') };
    expect(splitPeriod(inside)).toEqual({ wholeDays: null, partial: [inside] });
    const across = { from: t('2026-01-01T10:00:00.000Z'), to: t('2026-01-02T11:00:00.000Z') };
    expect(splitPeriod(across)).toEqual({ wholeDays: null, partial: [across] });
  });
});

describe('splitDays', () => {
  it('reads whole calendar months from month buckets and the days around them from day buckets', () => {
    expect(splitDays('2025-11-23', '2026-11-21')).toEqual({
      months: { first: '2025-12', last: '2026-10' },
      days: [
        { first: '2025-11-23', last: '2025-11-30' },
        { first: '2026-11-01', last: '2026-11-21' },
      ],
    });
    expect(splitDays('2026-01-01', '2026-03-31')).toEqual({
      months: { first: '2026-01', last: '2026-03' },
      days: [],
    });
    expect(splitDays('2026-02-01', '2026-02-28')).toEqual({
      months: { first: '2026-02', last: '2026-02' },
      days: [],
    });
  });

  it('keeps days when no month is whole', () => {
    expect(splitDays('2026-01-02', '2026-01-31')).toEqual({
      months: null,
      days: [{ first: '2026-01-02', last: '2026-01-31' }],
    });
    expect(splitDays('2026-01-15', '2026-02-10')).toEqual({
      months: null,
      days: [{ first: '2026-01-15', last: '2026-02-10' }],
    });
  });
});
