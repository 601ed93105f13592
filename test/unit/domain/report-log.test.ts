import { normalisePeriodBound } from '../../../shared/domain/governance/report-log.js';

describe('report period bounds', () => {
  it('date-only: start of the UTC day for from, its last millisecond for to', () => {
    expect(normalisePeriodBound('2026-03-31', 'from')).toBe('2026-03-31T00:00:00.000Z');
    expect(normalisePeriodBound('2026-03-31', 'to')).toBe('2026-03-31T23:59:59.999Z');
    expect(normalisePeriodBound('2024-02-29', 'to')).toBe('2024-02-29T23:59:59.999Z');
    expect(normalisePeriodBound('2026-12-31', 'to')).toBe('2026-12-31T23:59:59.999Z');
  });

  it('date-times become UTC with milliseconds, whatever the offset or precision', () => {
    expect(normalisePeriodBound('2026-01-01T00:30:00+01:00', 'from')).toBe('2025-12-31T23:30:00.000Z');
    expect(normalisePeriodBound('2026-01-01T10:00:00.123456Z', 'to')).toBe('2026-01-01T10:00:00.123Z');
  });

  it('refuses dates that do not exist', () => {
    expect(normalisePeriodBound('2026-02-29', 'from')).toBeNull();
    expect(normalisePeriodBound('2026-13-01', 'from')).toBeNull();
    expect(normalisePeriodBound('2026-04-31', 'to')).toBeNull();
  });
});
