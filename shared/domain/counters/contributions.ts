/**
 * Firm counters (issue 14): what one job, incident or certificate contributes to its firm's counters. Pure: no
 * storage, no clock. A write adds `delta(before, after)` to the counters in the transaction that moves the
 * entity; a recount sums `contributions` over every entity. Both use the same functions, so they cannot
 * disagree (docs/architecture.md, "Counters").
 *
 * A counter is named by a JSON array (`["jobs","open"]`, `["model","openai","gpt-4o","o","REJECTED"]`), so
 * free-text parts (a model's provider or version) need no escaping and new models need no schema change.
 */
import type { IncidentCategory, IncidentSeverity, IncidentStatus } from '../governance/incidents.js';
import { isResolved, OPEN_STATUSES as OPEN_INCIDENT_STATUSES } from '../governance/incidents.js';
import { declaredModel } from '../review/jobs.js';

export type Counters = Map<string, number>;

/** The counter families: each is kept on its own items and read alone. */
export const COUNTER_FAMILIES = ['jobs', 'certificates', 'incidents'] as const;
export type CounterFamily = (typeof COUNTER_FAMILIES)[number];

/**
 * Items per family. A write touches the one shard its entity hashes to, so concurrent writes of different
 * entities rarely share an item (a ledger batch may not hold one item twice: appends sharing a counter item
 * go to consecutive batches); a read sums every shard (one Query of SHARDS small items).
 */
export const SHARDS: Readonly<Record<CounterFamily, number>> = { jobs: 8, certificates: 4, incidents: 2 };

/** The shard of an entity: FNV-1a of its id, modulo the family's shards. */
export function shardOf(family: CounterFamily, entityId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < entityId.length; i++) {
    hash ^= entityId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % SHARDS[family];
}

export const counterName = (...parts: string[]): string => JSON.stringify(parts);
export const isCounterName = (name: string): boolean => name.startsWith('[');

const COMPLETED_JOB_STATUSES: readonly string[] = ['APPROVED', 'MODIFIED', 'REJECTED'];
export const OPEN_JOB_STATUSES: readonly string[] = ['QUEUED', 'ASSIGNED', 'IN_REVIEW', 'ESCALATED'];

/** The fields of a job its counters depend on (none of them changes except by submit, complete, cancel). */
export interface JobCounterView {
  status: string;
  outcome: string | null;
  aiContext: unknown;
  vulnerabilityFlags: readonly string[];
  requiresSeniorSignOff: boolean;
  annotationCount?: number;
}

/** open | completed | cancelled, as the model summary classifies a job. */
export function jobState(
  job: Pick<JobCounterView, 'status' | 'outcome'>,
): 'open' | 'completed' | 'cancelled' {
  if (COMPLETED_JOB_STATUSES.includes(job.status) && job.outcome !== null) return 'completed';
  return job.status === 'CANCELLED' ? 'cancelled' : 'open';
}

/** What one job adds to the `jobs` family: totals, per model, per vulnerability flag, senior backlog. */
export function jobContributions(job: JobCounterView): Counters {
  const counters: Counters = new Map();
  const add = (name: string, value = 1) => {
    if (value !== 0) counters.set(name, (counters.get(name) ?? 0) + value);
  };
  const state = jobState(job);
  const completed = state === 'completed';
  add(counterName('jobs', 'total'));
  add(counterName('jobs', state));
  const model = declaredModel(job.aiContext);
  if (model) {
    const m = ['model', model.provider, model.version];
    add(counterName(...m, 'jobs'));
    add(counterName(...m, state));
    if (completed) {
      add(counterName(...m, 'o', job.outcome!));
      add(counterName(...m, 'ann'), job.annotationCount ?? 0);
    }
  }
  const flags = job.vulnerabilityFlags ?? [];
  add(counterName('vuln', flags.length > 0 ? 'flagged' : 'unflagged'));
  for (const flag of new Set(flags)) {
    add(counterName('vuln', 'flag', flag, 'total'));
    add(counterName('vuln', 'flag', flag, state));
    if (completed) add(counterName('vuln', 'flag', flag, 'o', job.outcome!));
  }
  if (state === 'open' && job.requiresSeniorSignOff) add(counterName('vuln', 'seniorOpen'));
  return counters;
}

/** The fields of an incident its counters depend on. */
export interface IncidentCounterView {
  severity: IncidentSeverity;
  category: IncidentCategory;
  status: IncidentStatus;
  reportedAt: string;
  resolvedAt: string | null;
}

/** What one incident adds to the `incidents` family, including its months (reported, critical, resolved). */
export function incidentContributions(incident: IncidentCounterView): Counters {
  const counters: Counters = new Map();
  const add = (name: string) => counters.set(name, (counters.get(name) ?? 0) + 1);
  add(counterName('total'));
  add(counterName('category', incident.category));
  if (OPEN_INCIDENT_STATUSES.includes(incident.status)) add(counterName('open'));
  if (isResolved(incident.status)) add(counterName('resolved'));
  const reportedMonth = incident.reportedAt.slice(0, 7);
  add(counterName('month', reportedMonth, 'reported'));
  if (incident.severity === 'CRITICAL') {
    add(counterName('critical'));
    add(counterName('month', reportedMonth, 'critical'));
  }
  if (incident.resolvedAt) add(counterName('month', incident.resolvedAt.slice(0, 7), 'resolved'));
  return counters;
}

/** What one issued certificate adds to the `certificates` family. */
export function certificateContributions(): Counters {
  return new Map([[counterName('certificates'), 1]]);
}

/** after − before, without zero terms: what a write that moves an entity adds to its shard. */
export function counterDelta(before: Counters | null, after: Counters | null): Counters {
  const delta: Counters = new Map();
  for (const [name, value] of after ?? []) delta.set(name, value);
  for (const [name, value] of before ?? []) delta.set(name, (delta.get(name) ?? 0) - value);
  for (const [name, value] of delta) if (value === 0) delta.delete(name);
  return delta;
}

/** The sum of several counter sets (a family's shards, or many entities). */
export function sumCounters(sets: Iterable<Counters>): Counters {
  const sum: Counters = new Map();
  for (const set of sets) for (const [name, value] of set) sum.set(name, (sum.get(name) ?? 0) + value);
  return sum;
}

/** A counter's value, 0 when absent. */
export const valueOf = (counters: Counters, ...parts: string[]): number =>
  counters.get(counterName(...parts)) ?? 0;
