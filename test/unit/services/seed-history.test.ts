import { LEDGER_EVENT_TYPES, OUTCOME_EVENT_TYPES } from '../../../shared/ledger/event-types.js';
import { planHistory, RECORDS_PER_JOB } from '../../../shared/services/seed/history.js';
import type { UserItem } from '../../../shared/store/user-store.js';

const user = (id: string, role: UserItem['role']): UserItem => ({
  id,
  firmId: 'firm_1',
  name: id,
  email: `${id}@seed.invalid`,
  fcaRef: null,
  qualifications: [],
  role,
  isAvailable: true,
  specialistVulnerability: false,
  invitedAt: '2026-01-01T00:00:00.000Z',
  activatedAt: null,
  deactivatedAt: null,
  activeJobId: null,
});

function lcg(seed: number) {
  let state = seed;
  return () => (state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

const to = Date.parse('2026-11-26T00:00:00.000Z');
const from = to - 365 * 86_400_000;
const plan = planHistory({
  firmId: 'firm_1',
  records: 1000,
  jobs: 200,
  from,
  to,
  reviewers: [user('usr_r1', 'REVIEWER'), user('usr_r2', 'REVIEWER'), user('usr_l1', 'LEAD_REVIEWER')],
  admin: user('usr_admin', 'FIRM_ADMIN'),
  random: lcg(7),
});

describe('the seeded history (planHistory)', () => {
  it('has exactly the records asked for, in time order inside the period, with unique ids', () => {
    expect(plan.payloads).toHaveLength(1000);
    const times = plan.payloads.map((p) => Date.parse(p.timestamp));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(Math.min(...times)).toBeGreaterThanOrEqual(from);
    expect(Math.max(...times)).toBeLessThanOrEqual(to);
    expect(new Set(plan.payloads.map((p) => p.id)).size).toBe(1000);
  });

  it('holds every kind ordinary operation writes, and never a repair, a key change or a tampering found', () => {
    const kinds = new Set(plan.payloads.map((p) => p.eventType));
    const extraordinary = new Set(['CHAIN_REPAIRED', 'SIGNING_KEY_ROTATED', 'TAMPERING_DETECTED']);
    expect([...kinds].sort()).toEqual(LEDGER_EVENT_TYPES.filter((t) => !extraordinary.has(t)).sort());
  });

  it('gives each completed job its four records in order, its outcome record and a consistent state', () => {
    expect(plan.jobs).toHaveLength(200);
    const index = new Map(plan.payloads.map((p, i) => [p.id, i]));
    for (const job of plan.jobs) {
      const mine = plan.payloads.filter((p) => p.reviewJobId === job.id).map((p) => p.eventType);
      const flow = mine.filter((t) => !['SLA_BREACHED', 'JOB_ESCALATED', 'CERTIFICATE_ISSUED'].includes(t));
      expect(flow).toHaveLength(RECORDS_PER_JOB);
      expect(flow.slice(0, 3)).toEqual(['DOCUMENT_SUBMITTED', 'REVIEW_STARTED', 'REVIEW_COMPLETED']);
      expect(OUTCOME_EVENT_TYPES).toContain(flow[3]);
      const outcome = plan.payloads[index.get(job.ledgerRecordId!)!]!;
      expect(outcome).toMatchObject({ reviewJobId: job.id, eventType: flow[3] });
      expect(['APPROVED', 'MODIFIED', 'REJECTED']).toContain(job.status);
      expect(job.completedAt! >= job.submittedAt).toBe(true);
      if (job.requiresSeniorSignOff) expect(job.assignedReviewerId).toBe('usr_l1');
      if (job.slaBreachedAt)
        expect(Date.parse(job.completedAt!)).toBeGreaterThan(Date.parse(job.slaDeadline));
    }
  });

  it('certifies outcome records: each certificate points at its job outcome, told by a later CERTIFICATE_ISSUED', () => {
    expect(plan.certificates.length).toBeGreaterThan(0);
    for (const c of plan.certificates) {
      const certified = plan.payloads[c.certified]!;
      const issued = plan.payloads[c.issued]!;
      expect(OUTCOME_EVENT_TYPES).toContain(certified.eventType);
      expect(issued.eventType).toBe('CERTIFICATE_ISSUED');
      expect(c.issued).toBeGreaterThan(c.certified);
      expect(plan.jobs.find((j) => j.ledgerRecordId === certified.id)?.certificateId).toBe(c.id);
    }
  });

  it('logs incidents with their records; a resolved one has its INCIDENT_RESOLVED after it', () => {
    expect(plan.incidents.length).toBeGreaterThan(0);
    for (const incident of plan.incidents) {
      const records = plan.payloads.filter((p) => p.documentMetadata.incidentId === incident.id);
      expect(records[0]!.eventType).toBe('INCIDENT_LOGGED');
      expect(records.map((r) => r.eventType)).toEqual(
        incident.status === 'RESOLVED' ? ['INCIDENT_LOGGED', 'INCIDENT_RESOLVED'] : ['INCIDENT_LOGGED'],
      );
    }
  });

  it('refuses a record count too small for the jobs', () => {
    expect(() =>
      planHistory({
        firmId: 'firm_1',
        records: 20,
        jobs: 5,
        from,
        to,
        reviewers: [user('usr_r1', 'REVIEWER'), user('usr_l1', 'LEAD_REVIEWER')],
        admin: user('usr_admin', 'FIRM_ADMIN'),
        random: lcg(1),
      }),
    ).toThrow(RangeError);
  });
});
