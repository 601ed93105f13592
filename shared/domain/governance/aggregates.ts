/**
 * Reporting aggregates. Each completed review job contributes counters to the day bucket of its
 * completion (UTC day of completedAt); reports add buckets (and, for partial edge days, the facts of the
 * jobs themselves) and compute rates from the sums. The counters are plain numbers keyed by a JSON array
 * naming a group and a metric, so one bucket item can hold any number of models, segments and reviewers
 * without a schema change:
 *
 *   group:  ["all"] | ["model", provider, version] | ["docType", slug] | ["seg", dimension, value]
 *           | ["reviewer", userId] | ["vuln", flag] | ["unflagged"]
 *   metric: ["o", outcome] (count) | ["sla", "met" | "breached"] (count) | ["ann"] (sum of annotations)
 */
import { JOB_OUTCOMES, type JobOutcome } from '../review/jobs.js';

/** Statuses of a job that has its outcome. */
export const COMPLETED_STATUSES = ['APPROVED', 'MODIFIED', 'REJECTED'] as const;

/** What aggregation keeps of a completed job: enough to recompute every counter it contributed. */
export interface ReportingFact {
  jobId: string;
  /** ISO 8601 UTC with milliseconds. */
  completedAt: string;
  outcome: JobOutcome;
  model: { provider: string; version: string } | null;
  documentType: string;
  segments: Record<string, string>;
  reviewerId: string | null;
  vulnerabilityFlags: string[];
  slaBreached: boolean;
  annotationCount: number;
}

/** The fields of a review job aggregation reads (a subset of the stored job). */
export interface CompletedJobLike {
  id: string;
  status: string;
  outcome: string | null;
  completedAt: string | null;
  slaDeadline: string;
  slaBreachedAt?: string | null;
  annotationCount?: number;
  documentType: string;
  aiContext: Record<string, unknown> | null;
  clientSegments: Record<string, string>;
  assignedReviewerId: string | null;
  vulnerabilityFlags: readonly string[];
}

function modelOf(aiContext: unknown): ReportingFact['model'] {
  if (typeof aiContext !== 'object' || aiContext === null) return null;
  const model = (aiContext as { model?: unknown }).model;
  if (typeof model !== 'object' || model === null) return null;
  const { provider, version } = model as { provider?: unknown; version?: unknown };
  return typeof provider === 'string' && typeof version === 'string' ? { provider, version } : null;
}

/**
 * The reporting fact of a completed job, or null when the job has no outcome yet (or was cancelled). The
 * SLA counts as breached when an SLA_BREACHED was recorded (slaBreachedAt) or the job was completed after
 * its deadline.
 */
export function factOfJob(job: CompletedJobLike): ReportingFact | null {
  if (!(COMPLETED_STATUSES as readonly string[]).includes(job.status)) return null;
  if (!job.completedAt || !(JOB_OUTCOMES as readonly string[]).includes(job.outcome ?? '')) return null;
  const completed = Date.parse(job.completedAt);
  if (Number.isNaN(completed)) return null;
  return {
    jobId: job.id,
    completedAt: new Date(completed).toISOString(),
    outcome: job.outcome as JobOutcome,
    model: modelOf(job.aiContext),
    documentType: job.documentType,
    segments: { ...job.clientSegments },
    reviewerId: job.assignedReviewerId,
    vulnerabilityFlags: [...new Set(job.vulnerabilityFlags)],
    slaBreached:
      (job.slaBreachedAt !== undefined && job.slaBreachedAt !== null) ||
      completed > Date.parse(job.slaDeadline),
    annotationCount: Math.max(0, Math.trunc(job.annotationCount ?? 0)),
  };
}

export type Group = readonly string[];
export type Counters = Map<string, number>;

export const counterKey = (group: Group, ...metric: string[]): string =>
  JSON.stringify([...group, ...metric]);

/** Whether an attribute name is a counter (the bucket item's other attributes are keys and the day). */
export const isCounterKey = (name: string): boolean => name.startsWith('[');

/** The groups a fact belongs to. */
export function groupsOf(fact: ReportingFact): Group[] {
  const groups: Group[] = [['all'], ['docType', fact.documentType]];
  if (fact.model) groups.push(['model', fact.model.provider, fact.model.version]);
  for (const [dimension, value] of Object.entries(fact.segments)) groups.push(['seg', dimension, value]);
  if (fact.reviewerId) groups.push(['reviewer', fact.reviewerId]);
  if (fact.vulnerabilityFlags.length === 0) groups.push(['unflagged']);
  for (const flag of fact.vulnerabilityFlags) groups.push(['vuln', flag]);
  return groups;
}

/** The counter increments of one completed job. */
export function contributions(fact: ReportingFact): Counters {
  const counters: Counters = new Map();
  for (const group of groupsOf(fact)) {
    counters.set(counterKey(group, 'o', fact.outcome), 1);
    counters.set(counterKey(group, 'sla', fact.slaBreached ? 'breached' : 'met'), 1);
    if (fact.annotationCount > 0) counters.set(counterKey(group, 'ann'), fact.annotationCount);
  }
  return counters;
}

/** Adds `more` into `into` (mutates and returns `into`). */
export function addCounters(into: Counters, more: ReadonlyMap<string, number>): Counters {
  for (const [key, value] of more) into.set(key, (into.get(key) ?? 0) + value);
  return into;
}

export function sumCounters(all: Iterable<ReadonlyMap<string, number>>): Counters {
  const total: Counters = new Map();
  for (const counters of all) addCounters(total, counters);
  return total;
}

/** Outcome and SLA tallies of one group. */
export interface Tally {
  total: number;
  approved: number;
  modified: number;
  rejected: number;
  slaMet: number;
  slaBreached: number;
  annotations: number;
}

export function tallyOf(counters: ReadonlyMap<string, number>, group: Group): Tally {
  const get = (...metric: string[]) => counters.get(counterKey(group, ...metric)) ?? 0;
  const approved = get('o', 'APPROVED');
  const modified = get('o', 'APPROVED_WITH_MODIFICATIONS');
  const rejected = get('o', 'REJECTED');
  return {
    total: approved + modified + rejected,
    approved,
    modified,
    rejected,
    slaMet: get('sla', 'met'),
    slaBreached: get('sla', 'breached'),
    annotations: get('ann'),
  };
}

/** The distinct groups under a prefix (e.g. ["seg"] gives every ["seg", dimension, value]), sorted. */
export function groupsUnder(counters: ReadonlyMap<string, number>, prefix: Group, length: number): Group[] {
  const seen = new Map<string, Group>();
  for (const key of counters.keys()) {
    const parts = JSON.parse(key) as string[];
    if (parts.length < length || !prefix.every((p, i) => parts[i] === p)) continue;
    const group = parts.slice(0, length);
    seen.set(JSON.stringify(group), group);
  }
  return [...seen.values()].sort((a, b) => compareGroups(a, b));
}

function compareGroups(a: Group, b: Group): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = a[i]!.localeCompare(b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** Counters per UTC day (YYYY-MM-DD), as reports receive them. */
export type DayCounters = Map<string, Counters>;

/** Adds one fact's contributions to its day in `days`. */
export function addFact(days: DayCounters, fact: ReportingFact): void {
  const day = fact.completedAt.slice(0, 10);
  let counters = days.get(day);
  if (!counters) days.set(day, (counters = new Map()));
  addCounters(counters, contributions(fact));
}

/**
 * Counter families: the groups stored together in one bucket item. Each report reads only the families it
 * needs (bias: all + seg; drift and timeline: model; Consumer Duty: all + cd).
 */
export const FAMILIES = ['all', 'seg', 'model', 'cd', 'vuln'] as const;
export type Family = (typeof FAMILIES)[number];

const FAMILY_OF_GROUP: Record<string, Family> = {
  all: 'all',
  seg: 'seg',
  model: 'model',
  docType: 'cd',
  reviewer: 'cd',
  vuln: 'vuln',
  unflagged: 'vuln',
};

export function familyOf(counter: string): Family {
  const kind = (JSON.parse(counter) as string[])[0]!;
  const family = FAMILY_OF_GROUP[kind];
  if (!family) throw new Error(`Counter of unknown group: ${counter}`);
  return family;
}

/** Splits counters by family (families without counters are absent). */
export function splitByFamily(counters: ReadonlyMap<string, number>): Map<Family, Counters> {
  const byFamily = new Map<Family, Counters>();
  for (const [key, value] of counters) {
    const family = familyOf(key);
    let part = byFamily.get(family);
    if (!part) byFamily.set(family, (part = new Map()));
    part.set(key, value);
  }
  return byFamily;
}
