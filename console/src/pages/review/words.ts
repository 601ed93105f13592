import type { components } from '../../../../clients/typescript/index';

export type Job = components['schemas']['ReviewJob'];
export type JobDetail = components['schemas']['ReviewJobDetail'];
export type Outcome = NonNullable<Job['outcome']>;

export const STATUS_WORDS: Record<Job['status'], string> = {
  QUEUED: 'Waiting',
  ASSIGNED: 'Assigned',
  IN_REVIEW: 'In review',
  ESCALATED: 'Escalated',
  APPROVED: 'Approved',
  MODIFIED: 'Approved with modifications',
  REJECTED: 'Rejected',
  CANCELLED: 'Cancelled',
};

export const OUTCOME_WORDS: Record<Outcome, string> = {
  APPROVED: 'Approve',
  APPROVED_WITH_MODIFICATIONS: 'Approve with modifications',
  REJECTED: 'Reject',
};

export const FLAG_WORDS: Record<Job['vulnerabilityFlags'][number], string> = {
  health: 'Health',
  life_event: 'Life event',
  capability: 'Capability',
  resilience: 'Resilience',
};

/** A date-time in the reader's locale, with the UTC instant on hover. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The document's file name, the last part of its immutable copy's key. */
export function fileName(job: Job): string {
  return decodeURIComponent(job.documentUrl.split('/').pop() ?? job.documentReference);
}

/** A list answer, whether the API answers an array or a page (`{ data }`). */
export function itemsOf<T>(answer: T[] | { data: T[] }): T[] {
  return Array.isArray(answer) ? answer : answer.data;
}
