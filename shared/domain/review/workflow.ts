/**
 * The reviewer workflow's rules that need no storage: who may be routed which job, in which order, who may
 * act on a job in which state (the transitions table), completion bodies, checklists and the anonymised view
 * of a job's review actions. docs/architecture.md ("Review workflow") explains the decisions.
 */
import type { Role } from '../auth/principal.js';
import type { JobOutcome, JobPriority, JobStatus } from './jobs.js';

export const SENIOR_ROLES: readonly Role[] = ['LEAD_REVIEWER', 'FIRM_ADMIN'];
export const isSenior = (role: Role): boolean => SENIOR_ROLES.includes(role);

/** States in which a job still waits for a decision (the SLA applies, the submitter may cancel). */
export const UNFINISHED_STATUSES: readonly JobStatus[] = ['QUEUED', 'ASSIGNED', 'IN_REVIEW', 'ESCALATED'];
export const isUnfinished = (status: JobStatus): boolean => UNFINISHED_STATUSES.includes(status);

export const OUTCOME_STATUS = {
  APPROVED: 'APPROVED',
  APPROVED_WITH_MODIFICATIONS: 'MODIFIED',
  REJECTED: 'REJECTED',
} as const satisfies Record<JobOutcome, JobStatus>;

export const OUTCOME_EVENT = {
  APPROVED: 'DOCUMENT_APPROVED',
  APPROVED_WITH_MODIFICATIONS: 'DOCUMENT_MODIFIED',
  REJECTED: 'DOCUMENT_REJECTED',
} as const satisfies Record<JobOutcome, string>;

// ---------------------------------------------------------------------------------------------- routing

/** What routing needs to know about a user. */
export interface ReviewerState {
  id: string;
  role: Role;
  isAvailable: boolean;
  specialistVulnerability: boolean;
  activatedAt: string | null;
  deactivatedAt: string | null;
  activeJobId: string | null;
  /** When the user's recent jobs were completed (the workload measure), newest last. */
  recentCompletions?: string[] | undefined;
  /** When the user was last given a job (the tie-break: who waited longest goes first). */
  lastAssignedAt?: string | null | undefined;
}

/** What routing needs to know about a waiting job (carried by its queue entry). */
export interface WaitingJob {
  jobId: string;
  priority: JobPriority;
  submittedAt: string;
  vulnerable: boolean;
  requiresSeniorSignOff: boolean;
  /** The user who submitted the job (null when an API key did): never routed it (four eyes). */
  submittedByUserId?: string | null;
}

/** Workload window: jobs completed in the last 8 hours (a working day) count against a reviewer. */
export const WORKLOAD_WINDOW_HOURS = 8;
const WORKLOAD_WINDOW_MS = WORKLOAD_WINDOW_HOURS * 3_600_000;
/** At most this many completion times are kept on a user (enough to measure any realistic day). */
export const RECENT_COMPLETIONS_KEPT = 50;

/**
 * Whether the user can take a new job now: active (not deactivated), signed in at least once (an invited user
 * who never signed in cannot act, so work would sit with them), available, and without an active job.
 */
export function isFree(user: ReviewerState): boolean {
  return (
    user.deactivatedAt === null &&
    user.activatedAt !== null &&
    user.isAvailable &&
    (user.activeJobId === null || user.activeJobId === undefined)
  );
}

/**
 * Who may be given `job`: never the user who submitted it (four eyes: a reviewer never reviews their own
 * submission); and FG21/1: a job with vulnerability flags only goes to specialists, LEAD_REVIEWERs and
 * FIRM_ADMINs.
 */
export function mayHandle(
  user: Pick<ReviewerState, 'id' | 'role' | 'specialistVulnerability'>,
  job: WaitingJob,
) {
  if (job.submittedByUserId && user.id === job.submittedByUserId) return false;
  return !job.vulnerable || user.specialistVulnerability || isSenior(user.role);
}

/** Completions within the workload window before `now`. */
export function workload(user: ReviewerState, now: string): number {
  const since = Date.parse(now) - WORKLOAD_WINDOW_MS;
  return (user.recentCompletions ?? []).filter((at) => Date.parse(at) > since).length;
}

/** The completion log after one more completion at `at`: pruned to the window and to the last 50. */
export function withCompletion(recent: readonly string[] | undefined, at: string): string[] {
  const since = Date.parse(at) - WORKLOAD_WINDOW_MS;
  return [...(recent ?? []).filter((t) => Date.parse(t) > since), at].slice(-RECENT_COMPLETIONS_KEPT);
}

/**
 * The users who may take `job`, best first: (1) role fit: seniors first for a job needing senior sign-off
 * (they can complete it), non-seniors first otherwise (keeps scarce senior capacity free); (2) fewest jobs
 * completed in the last 8 hours; (3) longest since their last assignment (never assigned first); (4) user id.
 */
export function rankReviewers(job: WaitingJob, users: readonly ReviewerState[], now: string) {
  const fit = (user: ReviewerState) => (isSenior(user.role) === job.requiresSeniorSignOff ? 0 : 1);
  return users
    .filter((user) => isFree(user) && mayHandle(user, job))
    .map((user) => ({ user, fit: fit(user), load: workload(user, now), last: user.lastAssignedAt ?? '' }))
    .sort(
      (a, b) =>
        a.fit - b.fit ||
        a.load - b.load ||
        a.last.localeCompare(b.last) ||
        a.user.id.localeCompare(b.user.id),
    )
    .map((ranked) => ranked.user);
}

/** Queue order: URGENT before STANDARD, then oldest submission first, then job id. */
export function queueOrder(job: Pick<WaitingJob, 'jobId' | 'priority' | 'submittedAt'>): string {
  return `${job.priority === 'URGENT' ? 0 : 1}#${job.submittedAt}#${job.jobId}`;
}

/**
 * Pairs waiting jobs (in queue order) with free users, greedily: each job in turn gets the best user still
 * free. A job nobody may take (a flagged job with no specialist free, or its submitter the only one free) is
 * skipped, not blocking the ones behind it.
 */
export function planAssignments(
  jobs: readonly WaitingJob[],
  users: readonly ReviewerState[],
  now: string,
): { jobId: string; userId: string }[] {
  const taken = new Set<string>();
  const plan: { jobId: string; userId: string }[] = [];
  const ordered = [...jobs].sort((a, b) => queueOrder(a).localeCompare(queueOrder(b)));
  for (const job of ordered) {
    const best = rankReviewers(
      job,
      users.filter((user) => !taken.has(user.id)),
      now,
    )[0];
    if (!best) continue;
    taken.add(best.id);
    plan.push({ jobId: job.jobId, userId: best.id });
  }
  return plan;
}

// ------------------------------------------------------------------------------------------ transitions

export type JobAction = 'start' | 'complete' | 'escalate' | 'cancel';

/**
 * The transitions table (routing's QUEUED -> ASSIGNED and re-routing are system moves, not actions):
 *
 * | action   | from                               | to                     | who                                  |
 * |----------|------------------------------------|------------------------|--------------------------------------|
 * | start    | ASSIGNED                           | IN_REVIEW              | the assigned reviewer                |
 * | start    | ESCALATED                          | IN_REVIEW              | any LEAD_REVIEWER / FIRM_ADMIN       |
 * | complete | IN_REVIEW                          | APPROVED/MODIFIED/REJ. | the assigned reviewer; senior if the job needs senior sign-off |
 * | escalate | ASSIGNED, IN_REVIEW                | ESCALATED              | the assigned reviewer                |
 * | cancel   | QUEUED, ASSIGNED, IN_REVIEW, ESCAL.| CANCELLED              | a firm API key, or the submitting user |
 *
 * Four eyes: whoever may start, complete or escalate, it is never the user who submitted the job.
 */
export const TRANSITIONS: Record<JobAction, readonly JobStatus[]> = {
  start: ['ASSIGNED', 'ESCALATED'],
  complete: ['IN_REVIEW'],
  escalate: ['ASSIGNED', 'IN_REVIEW'],
  cancel: UNFINISHED_STATUSES,
};

export type Caller = { kind: 'apiKey'; id: string } | { kind: 'user'; id: string; role: Role };

export interface JobFacts {
  status: JobStatus;
  assignedReviewerId: string | null;
  requiresSeniorSignOff: boolean;
  /** A decision is recorded (REVIEW_COMPLETED) and its outcome record is being written. */
  decisionPending: boolean;
  submittedBy: { kind: 'apiKey' | 'user'; id: string } | null;
}

/**
 * Why a move is refused: the job's state does not allow it (`conflict`), the caller may not (`forbidden`), or
 * the caller submitted the job and may not review it (`submitter`, four eyes).
 */
export type Refusal = 'forbidden' | 'conflict' | 'submitter';
export type Verdict = { ok: true } | { ok: false; refusal: Refusal; message: string };

const allow: Verdict = { ok: true };
const conflict = (message: string): Verdict => ({ ok: false, refusal: 'conflict', message });
const forbidden = (message: string): Verdict => ({ ok: false, refusal: 'forbidden', message });
const submitter: Verdict = {
  ok: false,
  refusal: 'submitter',
  message: 'You submitted this job: another reviewer must review it (four eyes)',
};

/**
 * May `caller` take `action` on a job in this state? The state is judged first (an illegal move is a
 * conflict whoever asks), then the caller: the submitter never reviews their own job (four eyes), then
 * forbidden (not your job, or not senior enough).
 */
export function judge(action: JobAction, job: JobFacts, caller: Caller): Verdict {
  if (!TRANSITIONS[action].includes(job.status) || job.decisionPending)
    return conflict(
      job.decisionPending
        ? 'A decision is already recorded for this job'
        : `A job in status ${job.status} cannot be ${PAST[action]}`,
    );
  if (action === 'cancel') {
    if (caller.kind === 'apiKey') return allow;
    const by = job.submittedBy;
    return by?.kind === 'user' && by.id === caller.id
      ? allow
      : forbidden('Only the submitter (the user who submitted it, or a firm API key) can cancel a job');
  }
  if (caller.kind !== 'user') return forbidden('Reviewer actions need a signed-in user');
  if (job.submittedBy?.kind === 'user' && job.submittedBy.id === caller.id) return submitter;
  if (action === 'start' && job.status === 'ESCALATED')
    return isSenior(caller.role) ? allow : forbidden('Escalated jobs are for a LEAD_REVIEWER or FIRM_ADMIN');
  if (job.assignedReviewerId !== caller.id) return forbidden('The job is not assigned to you');
  if (action === 'complete' && job.requiresSeniorSignOff && !isSenior(caller.role))
    return forbidden(
      'This job requires senior sign-off: only a LEAD_REVIEWER or FIRM_ADMIN can complete it; escalate it',
    );
  return allow;
}

const PAST: Record<JobAction, string> = {
  start: 'started',
  complete: 'completed',
  escalate: 'escalated',
  cancel: 'cancelled',
};

// ---------------------------------------------------------------------------------------- completion

export const CHECKLIST_ANSWERS = ['YES', 'NO', 'NOT_APPLICABLE'] as const;
export type ChecklistAnswerValue = (typeof CHECKLIST_ANSWERS)[number];

export interface ChecklistAnswer {
  item: string;
  answer: ChecklistAnswerValue;
  note?: string | undefined;
}

export interface Problem {
  path: string;
  message: string;
}

/**
 * A checklist, when given, answers every item of the document type's checklist exactly once, and nothing
 * else (items are matched verbatim).
 */
export function checklistProblems(items: readonly string[], answers: readonly ChecklistAnswer[]): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  answers.forEach((answer, i) => {
    if (!items.includes(answer.item))
      problems.push({ path: `body.checklist.${i}.item`, message: 'Not an item of the document type' });
    else if (seen.has(answer.item))
      problems.push({ path: `body.checklist.${i}.item`, message: 'Answered more than once' });
    seen.add(answer.item);
  });
  for (const item of items)
    if (!seen.has(item)) problems.push({ path: 'body.checklist', message: `Missing an answer to: ${item}` });
  return problems;
}

export interface Decision {
  outcome: JobOutcome;
  outcomeReason?: string | null | undefined;
  modifications?: string | null | undefined;
}

/**
 * APPROVED_WITH_MODIFICATIONS needs modifications (kept verbatim), REJECTED needs a reason; modifications
 * belong only to APPROVED_WITH_MODIFICATIONS (an approval or rejection carrying them would be ambiguous).
 */
export function decisionProblems(decision: Decision): Problem[] {
  const blank = (value: string | null | undefined) => value === undefined || value === null || !value.trim();
  const problems: Problem[] = [];
  if (decision.outcome === 'APPROVED_WITH_MODIFICATIONS' && blank(decision.modifications))
    problems.push({ path: 'body.modifications', message: 'Required for APPROVED_WITH_MODIFICATIONS' });
  if (decision.outcome !== 'APPROVED_WITH_MODIFICATIONS' && !blank(decision.modifications))
    problems.push({ path: 'body.modifications', message: 'Only for APPROVED_WITH_MODIFICATIONS' });
  if (decision.outcome === 'REJECTED' && blank(decision.outcomeReason))
    problems.push({ path: 'body.outcomeReason', message: 'Required for REJECTED' });
  return problems;
}

// ------------------------------------------------------------------------------------ review actions

export const REVIEW_ACTIONS = [
  'ASSIGNED',
  'STARTED',
  'ESCALATED',
  'COMPLETED',
  'CANCELLED',
  'REQUEUED',
  'SLA_BREACHED',
] as const;
export type ReviewActionName = (typeof REVIEW_ACTIONS)[number];

/** How an action is kept on the job (internal: it names the acting user). */
export interface ActionLogEntry {
  action: ReviewActionName;
  at: string;
  /** The acting user's role; SYSTEM for routing and the sweep; SUBMITTER for a cancellation. */
  role: Role | 'SYSTEM' | 'SUBMITTER';
  /** The reviewer the action concerns (assigned, acting), or null. */
  reviewerId: string | null;
}

/** How an action is shown: the reviewer as a label stable within the job ("Reviewer 1"), never an identity. */
export interface ReviewAction {
  action: ReviewActionName;
  at: string;
  role: ActionLogEntry['role'];
  reviewer: string | null;
}

export function anonymiseActions(log: readonly ActionLogEntry[]): ReviewAction[] {
  const labels = new Map<string, string>();
  return log.map((entry) => {
    let reviewer: string | null = null;
    if (entry.reviewerId) {
      if (!labels.has(entry.reviewerId)) labels.set(entry.reviewerId, `Reviewer ${labels.size + 1}`);
      reviewer = labels.get(entry.reviewerId)!;
    }
    return { action: entry.action, at: entry.at, role: entry.role, reviewer };
  });
}
