import {
  canMoveIncident,
  INCIDENT_STATUSES,
  incidentStats,
  remediationCompletedAt,
  resolutionOf,
  trailingMonths,
  type IncidentFacts,
  type IncidentStatus,
} from '../../../shared/domain/governance/incidents.js';

describe('incident status graph', () => {
  const allowed = new Set([
    'OPEN>INVESTIGATING',
    'OPEN>REMEDIATING',
    'OPEN>RESOLVED',
    'OPEN>CLOSED',
    'INVESTIGATING>REMEDIATING',
    'INVESTIGATING>RESOLVED',
    'INVESTIGATING>CLOSED',
    'REMEDIATING>INVESTIGATING',
    'REMEDIATING>RESOLVED',
    'REMEDIATING>CLOSED',
    'RESOLVED>CLOSED',
  ]);
  it('allows exactly the table, plus staying put', () => {
    for (const from of INCIDENT_STATUSES)
      for (const to of INCIDENT_STATUSES)
        expect(`${from}>${to}:${canMoveIncident(from, to)}`).toBe(
          `${from}>${to}:${from === to || allowed.has(`${from}>${to}`)}`,
        );
  });

  it('stamps resolvedAt on the first move into RESOLVED or CLOSED only', () => {
    const now = '2026-05-01T00:00:00.000Z';
    const earlier = '2026-04-01T00:00:00.000Z';
    const open: IncidentStatus[] = ['OPEN', 'INVESTIGATING', 'REMEDIATING'];
    for (const from of open) {
      expect(resolutionOf(from, 'RESOLVED', null, now)).toEqual({ resolvedAt: now, resolves: true });
      expect(resolutionOf(from, 'CLOSED', null, now)).toEqual({ resolvedAt: now, resolves: true });
      expect(resolutionOf(from, 'INVESTIGATING', null, now)).toEqual({ resolvedAt: null, resolves: false });
    }
    expect(resolutionOf('RESOLVED', 'CLOSED', earlier, now)).toEqual({
      resolvedAt: earlier,
      resolves: false,
    });
    expect(resolutionOf('RESOLVED', 'RESOLVED', earlier, now)).toEqual({
      resolvedAt: earlier,
      resolves: false,
    });
    expect(resolutionOf('CLOSED', 'CLOSED', earlier, now)).toEqual({ resolvedAt: earlier, resolves: false });
  });
});

describe('remediation completedAt', () => {
  const now = '2026-05-02T00:00:00.000Z';
  const then = '2026-05-01T00:00:00.000Z';
  it('is set on becoming COMPLETED, kept while COMPLETED, cleared otherwise', () => {
    expect(remediationCompletedAt('OPEN', 'COMPLETED', null, now)).toBe(now);
    expect(remediationCompletedAt('IN_PROGRESS', 'COMPLETED', null, now)).toBe(now);
    expect(remediationCompletedAt('COMPLETED', 'COMPLETED', then, now)).toBe(then);
    expect(remediationCompletedAt('COMPLETED', 'IN_PROGRESS', then, now)).toBeNull();
    expect(remediationCompletedAt('COMPLETED', 'CANCELLED', then, now)).toBeNull();
    expect(remediationCompletedAt('OPEN', 'OPEN', null, now)).toBeNull();
  });
});

describe('incident statistics', () => {
  const now = new Date('2026-03-15T10:00:00.000Z');
  const facts = (f: Partial<IncidentFacts>): IncidentFacts => ({
    severity: 'LOW',
    category: 'OTHER',
    status: 'OPEN',
    reportedAt: '2026-03-01T00:00:00.000Z',
    resolvedAt: null,
    ...f,
  });

  it('trailing months run April of last year to March, oldest first, across the year boundary', () => {
    expect(trailingMonths(now)).toEqual([
      '2025-04',
      '2025-05',
      '2025-06',
      '2025-07',
      '2025-08',
      '2025-09',
      '2025-10',
      '2025-11',
      '2025-12',
      '2026-01',
      '2026-02',
      '2026-03',
    ]);
  });

  it('matches hand-computed counts', () => {
    const stats = incidentStats(
      [
        // Before the window: counted in totals only; resolved inside the window (April 2025).
        facts({
          reportedAt: '2025-03-31T23:59:59.999Z',
          status: 'CLOSED',
          resolvedAt: '2025-04-01T00:00:00.000Z',
        }),
        facts({ reportedAt: '2025-04-01T00:00:00.000Z', severity: 'CRITICAL', category: 'AI_MODEL' }),
        facts({ reportedAt: '2025-12-31T23:59:59.999Z', status: 'INVESTIGATING', category: 'AI_MODEL' }),
        facts({ reportedAt: '2026-01-10T00:00:00.000Z', status: 'REMEDIATING', severity: 'CRITICAL' }),
        facts({
          reportedAt: '2026-03-01T00:00:00.000Z',
          status: 'RESOLVED',
          resolvedAt: '2026-03-02T00:00:00.000Z',
          severity: 'HIGH',
          category: 'SECURITY',
        }),
      ],
      now,
    );
    expect(stats).toMatchObject({ total: 5, open: 3, resolved: 2, critical: 2 });
    expect(stats.byCategory).toMatchObject({ OTHER: 2, AI_MODEL: 2, SECURITY: 1, DATA_PROTECTION: 0 });
    const month = (m: string) => stats.trend.find((p) => p.month === m);
    expect(month('2025-04')).toEqual({ month: '2025-04', reported: 1, resolved: 1, critical: 1 });
    expect(month('2025-12')).toEqual({ month: '2025-12', reported: 1, resolved: 0, critical: 0 });
    expect(month('2026-01')).toEqual({ month: '2026-01', reported: 1, resolved: 0, critical: 1 });
    expect(month('2026-03')).toEqual({ month: '2026-03', reported: 1, resolved: 1, critical: 0 });
    expect(stats.trend.reduce((n, p) => n + p.reported, 0)).toBe(4);
  });

  it('is all zeros for no incidents', () => {
    const stats = incidentStats([], now);
    expect(stats).toMatchObject({ total: 0, open: 0, resolved: 0, critical: 0 });
    expect(Object.values(stats.byCategory)).toEqual(new Array(11).fill(0));
    expect(stats.trend).toHaveLength(12);
  });
});
