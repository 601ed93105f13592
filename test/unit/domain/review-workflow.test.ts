import {
  anonymiseActions,
  checklistProblems,
  decisionProblems,
  isFree,
  judge,
  mayHandle,
  planAssignments,
  rankReviewers,
  withCompletion,
  workload,
  type JobFacts,
  type ReviewerState,
  type WaitingJob,
} from '../../../shared/domain/review/workflow.js';

const NOW = '2026-01-10T12:00:00.000Z';
const hoursAgo = (h: number) => new Date(Date.parse(NOW) - h * 3_600_000).toISOString();

const user = (id: string, extra: Partial<ReviewerState> = {}): ReviewerState => ({
  id,
  role: 'REVIEWER',
  isAvailable: true,
  specialistVulnerability: false,
  activatedAt: hoursAgo(100),
  deactivatedAt: null,
  activeJobId: null,
  ...extra,
});

const job = (jobId: string, extra: Partial<WaitingJob> = {}): WaitingJob => ({
  jobId,
  priority: 'STANDARD',
  submittedAt: hoursAgo(1),
  vulnerable: false,
  requiresSeniorSignOff: false,
  ...extra,
});

describe('who may be routed work', () => {
  it('only active, signed-in, available users without an active job are free', () => {
    expect(isFree(user('a'))).toBe(true);
    expect(isFree(user('a', { activatedAt: null }))).toBe(false);
    expect(isFree(user('a', { deactivatedAt: hoursAgo(1) }))).toBe(false);
    expect(isFree(user('a', { isAvailable: false }))).toBe(false);
    expect(isFree(user('a', { activeJobId: 'job_x' }))).toBe(false);
  });

  it('flagged jobs only to specialists, LEAD_REVIEWERs and FIRM_ADMINs', () => {
    const flagged = job('j', { vulnerable: true, requiresSeniorSignOff: true });
    expect(mayHandle(user('a'), flagged)).toBe(false);
    expect(mayHandle(user('a', { specialistVulnerability: true }), flagged)).toBe(true);
    expect(mayHandle(user('a', { role: 'LEAD_REVIEWER' }), flagged)).toBe(true);
    expect(mayHandle(user('a', { role: 'FIRM_ADMIN' }), flagged)).toBe(true);
    expect(mayHandle(user('a'), job('plain'))).toBe(true);
  });

  it('never the user who submitted the job (four eyes), whatever their role', () => {
    const own = job('j', { submittedByUserId: 'a' });
    expect(mayHandle(user('a'), own)).toBe(false);
    expect(mayHandle(user('a', { role: 'FIRM_ADMIN' }), own)).toBe(false);
    expect(mayHandle(user('b'), own)).toBe(true);
    expect(mayHandle(user('a'), job('j', { submittedByUserId: null }))).toBe(true);
  });
});

describe('ranking and workload', () => {
  it('counts completions in the last 8 hours only, and keeps the log pruned', () => {
    expect(workload(user('a', { recentCompletions: [hoursAgo(9), hoursAgo(7), hoursAgo(1)] }), NOW)).toBe(2);
    expect(withCompletion([hoursAgo(9), hoursAgo(2)], NOW)).toEqual([hoursAgo(2), NOW]);
    expect(
      withCompletion(
        Array.from({ length: 60 }, () => hoursAgo(1)),
        NOW,
      ),
    ).toHaveLength(50);
  });

  it('fewest recent completions first, then longest since last assignment, then id', () => {
    const busy = user('a', { recentCompletions: [hoursAgo(1), hoursAgo(2)] });
    const light = user('b', { recentCompletions: [hoursAgo(1)], lastAssignedAt: hoursAgo(1) });
    const lightEarlier = user('c', { recentCompletions: [hoursAgo(3)], lastAssignedAt: hoursAgo(3) });
    expect(rankReviewers(job('j'), [busy, light, lightEarlier], NOW).map((u) => u.id)).toEqual([
      'c',
      'b',
      'a',
    ]);
    expect(rankReviewers(job('j'), [user('z'), user('y')], NOW).map((u) => u.id)).toEqual(['y', 'z']);
  });

  it('seniors first for senior sign-off jobs, non-seniors first otherwise', () => {
    const lead = user('lead', { role: 'LEAD_REVIEWER', recentCompletions: [hoursAgo(1)] });
    const rev = user('rev');
    expect(rankReviewers(job('j', { requiresSeniorSignOff: true }), [rev, lead], NOW)[0]!.id).toBe('lead');
    expect(rankReviewers(job('j'), [lead, rev], NOW)[0]!.id).toBe('rev');
  });
});

describe('planAssignments', () => {
  it('URGENT before STANDARD, then oldest first', () => {
    const jobs = [
      job('old', { submittedAt: hoursAgo(5) }),
      job('new', { submittedAt: hoursAgo(1) }),
      job('urgent', { priority: 'URGENT', submittedAt: hoursAgo(0.5) }),
    ];
    expect(planAssignments(jobs, [user('a')], NOW)).toEqual([{ jobId: 'urgent', userId: 'a' }]);
    expect(planAssignments(jobs, [user('a'), user('b')], NOW).map((p) => p.jobId)).toEqual(['urgent', 'old']);
  });

  it('never gives one user two jobs, and a job nobody may take does not block the ones behind it', () => {
    const jobs = [job('flagged', { vulnerable: true, submittedAt: hoursAgo(9) }), job('a'), job('b')];
    const plan = planAssignments(jobs, [user('r1'), user('r2', { activeJobId: 'busy' })], NOW);
    expect(plan).toEqual([{ jobId: 'a', userId: 'r1' }]);
    expect(planAssignments([], [user('r1')], NOW)).toEqual([]);
    expect(planAssignments(jobs, [], NOW)).toEqual([]);
  });

  it('a job whose submitter is the only free user stays unassigned; another user gets it', () => {
    const own = job('own', { submittedByUserId: 'a', submittedAt: hoursAgo(9) });
    expect(planAssignments([own], [user('a')], NOW)).toEqual([]);
    expect(planAssignments([own, job('other')], [user('a')], NOW)).toEqual([{ jobId: 'other', userId: 'a' }]);
    expect(planAssignments([own], [user('a'), user('b')], NOW)).toEqual([{ jobId: 'own', userId: 'b' }]);
  });
});

describe('judge (the transitions table)', () => {
  const facts = (extra: Partial<JobFacts> = {}): JobFacts => ({
    status: 'ASSIGNED',
    assignedReviewerId: 'me',
    requiresSeniorSignOff: false,
    decisionPending: false,
    submittedBy: { kind: 'apiKey', id: 'key' },
    ...extra,
  });
  const me = { kind: 'user', id: 'me', role: 'REVIEWER' } as const;
  const other = { kind: 'user', id: 'other', role: 'REVIEWER' } as const;
  const lead = { kind: 'user', id: 'lead', role: 'LEAD_REVIEWER' } as const;
  const key = { kind: 'apiKey', id: 'key' } as const;
  const verdict = (v: ReturnType<typeof judge>) => (v.ok ? 'allowed' : v.refusal);

  it('start: the assignee from ASSIGNED, a senior from ESCALATED; a conflict from anything else', () => {
    expect(verdict(judge('start', facts(), me))).toBe('allowed');
    expect(verdict(judge('start', facts(), other))).toBe('forbidden');
    expect(verdict(judge('start', facts(), key))).toBe('forbidden');
    expect(verdict(judge('start', facts({ status: 'ESCALATED', assignedReviewerId: null }), lead))).toBe(
      'allowed',
    );
    expect(verdict(judge('start', facts({ status: 'ESCALATED', assignedReviewerId: null }), me))).toBe(
      'forbidden',
    );
    for (const s of ['QUEUED', 'IN_REVIEW', 'APPROVED', 'MODIFIED', 'REJECTED', 'CANCELLED'] as const)
      expect(verdict(judge('start', facts({ status: s }), me))).toBe('conflict');
  });

  it('complete: only IN_REVIEW, only the assignee, senior sign-off needs a senior', () => {
    expect(verdict(judge('complete', facts({ status: 'IN_REVIEW' }), me))).toBe('allowed');
    expect(verdict(judge('complete', facts({ status: 'ASSIGNED' }), me))).toBe('conflict');
    expect(verdict(judge('complete', facts({ status: 'IN_REVIEW' }), other))).toBe('forbidden');
    expect(verdict(judge('complete', facts({ status: 'IN_REVIEW', requiresSeniorSignOff: true }), me))).toBe(
      'forbidden',
    );
    const leadJob = facts({ status: 'IN_REVIEW', requiresSeniorSignOff: true, assignedReviewerId: 'lead' });
    expect(verdict(judge('complete', leadJob, lead))).toBe('allowed');
    expect(verdict(judge('complete', facts({ status: 'IN_REVIEW', decisionPending: true }), me))).toBe(
      'conflict',
    );
  });

  it('escalate from ASSIGNED or IN_REVIEW by the assignee; cancel by an API key or the submitting user', () => {
    expect(verdict(judge('escalate', facts(), me))).toBe('allowed');
    expect(verdict(judge('escalate', facts({ status: 'IN_REVIEW' }), me))).toBe('allowed');
    expect(verdict(judge('escalate', facts({ status: 'ESCALATED' }), me))).toBe('conflict');
    expect(verdict(judge('cancel', facts({ status: 'QUEUED' }), key))).toBe('allowed');
    const byMe = facts({ status: 'IN_REVIEW', submittedBy: { kind: 'user', id: 'me' } });
    expect(verdict(judge('cancel', byMe, me))).toBe('allowed');
    expect(verdict(judge('cancel', byMe, other))).toBe('forbidden');
    expect(verdict(judge('cancel', facts({ status: 'APPROVED' }), key))).toBe('conflict');
    expect(verdict(judge('cancel', facts({ status: 'CANCELLED' }), key))).toBe('conflict');
  });

  it('four eyes: the submitting user may not start, complete or escalate, even assigned or senior', () => {
    const mine = (extra: Partial<JobFacts>) => facts({ submittedBy: { kind: 'user', id: 'me' }, ...extra });
    expect(verdict(judge('start', mine({}), me))).toBe('submitter');
    expect(verdict(judge('complete', mine({ status: 'IN_REVIEW' }), me))).toBe('submitter');
    expect(verdict(judge('escalate', mine({ status: 'IN_REVIEW' }), me))).toBe('submitter');
    const byLead = facts({
      status: 'ESCALATED',
      assignedReviewerId: null,
      submittedBy: { kind: 'user', id: 'lead' },
    });
    expect(verdict(judge('start', byLead, lead))).toBe('submitter');
    // The state is still judged first, and the submitter may still cancel.
    expect(verdict(judge('start', mine({ status: 'APPROVED' }), me))).toBe('conflict');
    expect(verdict(judge('cancel', mine({}), me))).toBe('allowed');
    expect(verdict(judge('start', mine({ assignedReviewerId: 'other' }), other))).toBe('allowed');
  });
});

describe('completion bodies', () => {
  it('modifications only and always with APPROVED_WITH_MODIFICATIONS; a reason with REJECTED', () => {
    expect(decisionProblems({ outcome: 'APPROVED' })).toEqual([]);
    expect(decisionProblems({ outcome: 'APPROVED_WITH_MODIFICATIONS', modifications: ' x ' })).toEqual([]);
    expect(decisionProblems({ outcome: 'APPROVED_WITH_MODIFICATIONS', modifications: '  ' })).toHaveLength(1);
    expect(decisionProblems({ outcome: 'REJECTED' })).toEqual([
      { path: 'body.outcomeReason', message: 'Required for REJECTED' },
    ]);
    expect(decisionProblems({ outcome: 'REJECTED', outcomeReason: 'No', modifications: 'x' })).toHaveLength(
      1,
    );
  });

  it('a checklist answers each item exactly once', () => {
    const items = ['A', 'B'];
    expect(
      checklistProblems(items, [
        { item: 'A', answer: 'YES' },
        { item: 'B', answer: 'NO' },
      ]),
    ).toEqual([]);
    expect(checklistProblems(items, [{ item: 'A', answer: 'YES' }])).toHaveLength(1);
    expect(
      checklistProblems(items, [
        { item: 'A', answer: 'YES' },
        { item: 'A', answer: 'YES' },
        { item: 'B', answer: 'YES' },
      ]),
    ).toEqual([{ path: 'body.checklist.1.item', message: 'Answered more than once' }]);
    expect(checklistProblems(items, [{ item: 'C', answer: 'YES' }])).toHaveLength(3);
  });
});

it('anonymises review actions with labels stable within the job', () => {
  const log = [
    { action: 'ASSIGNED', at: NOW, role: 'SYSTEM', reviewerId: 'usr_1' },
    { action: 'ESCALATED', at: NOW, role: 'REVIEWER', reviewerId: 'usr_1' },
    { action: 'STARTED', at: NOW, role: 'LEAD_REVIEWER', reviewerId: 'usr_2' },
    { action: 'SLA_BREACHED', at: NOW, role: 'SYSTEM', reviewerId: null },
  ] as const;
  expect(anonymiseActions(log).map((a) => [a.action, a.role, a.reviewer])).toEqual([
    ['ASSIGNED', 'SYSTEM', 'Reviewer 1'],
    ['ESCALATED', 'REVIEWER', 'Reviewer 1'],
    ['STARTED', 'LEAD_REVIEWER', 'Reviewer 2'],
    ['SLA_BREACHED', 'SYSTEM', null],
  ]);
});
