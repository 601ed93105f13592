/** Review job rules that need no storage: statuses, the SLA deadline, the senior sign-off rule. */
import { ID_PREFIX } from '../../ids.js';

export const JOB_STATUSES = [
  'QUEUED',
  'ASSIGNED',
  'IN_REVIEW',
  'ESCALATED',
  'APPROVED',
  'MODIFIED',
  'REJECTED',
  'CANCELLED',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const JOB_PRIORITIES = ['STANDARD', 'URGENT'] as const;
export type JobPriority = (typeof JOB_PRIORITIES)[number];

export const JOB_OUTCOMES = ['APPROVED', 'APPROVED_WITH_MODIFICATIONS', 'REJECTED'] as const;
export type JobOutcome = (typeof JOB_OUTCOMES)[number];

export const VULNERABILITY_FLAGS = ['health', 'life_event', 'capability', 'resilience'] as const;
export type VulnerabilityFlag = (typeof VULNERABILITY_FLAGS)[number];

/** Every job must be decided within 48 hours of submission. */
export const SLA_HOURS = 48;
const SLA_MS = SLA_HOURS * 60 * 60 * 1000;

/** submittedAt plus 48 hours exactly, as an ISO-8601 instant (UTC, milliseconds). */
export function slaDeadline(submittedAt: string): string {
  const start = Date.parse(submittedAt);
  if (Number.isNaN(start)) throw new RangeError(`Not a timestamp: ${submittedAt}`);
  return new Date(start + SLA_MS).toISOString();
}

/**
 * Whether a LEAD_REVIEWER or FIRM_ADMIN must complete the job: any vulnerability flag forces it (FG21/1;
 * callers cannot opt out), otherwise the caller's choice (default false).
 */
export function requiresSeniorSignOff(
  vulnerabilityFlags: readonly string[],
  requested: boolean | undefined,
): boolean {
  return vulnerabilityFlags.length > 0 || requested === true;
}

/** The AI model a job declares (aiContext.model), or null. */
export interface DeclaredModel {
  provider: string;
  version: string;
}

export function declaredModel(aiContext: unknown): DeclaredModel | null {
  if (typeof aiContext !== 'object' || aiContext === null) return null;
  const model = (aiContext as { model?: unknown }).model;
  if (typeof model !== 'object' || model === null) return null;
  const { provider, version } = model as { provider?: unknown; version?: unknown };
  return typeof provider === 'string' && typeof version === 'string' ? { provider, version } : null;
}

/**
 * The id of the job submitted from an upload: `job_<the upload's ULID>`. One upload makes at most one job, so
 * every attempt to submit it names the same job and the same immutable copy (documentCopyKey): a retry after
 * a failed commit rewrites that copy with the same bytes instead of leaving one more behind.
 */
export function jobIdOfUpload(uploadId: string): string {
  return `${ID_PREFIX.job}_${uploadId}`;
}

/** `job_<ULID>` → object key of the canonical document copy in the immutable bucket. */
export function documentCopyKey(firmId: string, jobId: string, filename: string): string {
  return `documents/${firmId}/${jobId}/${filename}`;
}

/**
 * The job's documentUrl: an internal URI naming the immutable bucket by its logical name, never a public or
 * presigned URL (`immutable://documents/<firmId>/<jobId>/<filename>`).
 */
export function documentUrl(copyKey: string): string {
  return `immutable://${copyKey}`;
}

/** What every review record's metadata says about its job. */
export function jobMetadata(job: { id: string; documentReference: string; documentType: string }) {
  return { jobId: job.id, documentReference: job.documentReference, documentType: job.documentType };
}

/** What a submitted job's DOCUMENT_SUBMITTED record says of it (its documentMetadata). */
export interface SubmittedJobFacts {
  id: string;
  documentReference: string;
  documentType: string;
  clientReference: string;
  priority: JobPriority;
  requiresSeniorSignOff: boolean;
  vulnerabilityFlags: readonly VulnerabilityFlag[];
  documentUrl: string;
}

/**
 * DOCUMENT_SUBMITTED's documentMetadata for a job and the AI model it declared (if any): one shape for the
 * submission and for the bulk seed, which must write what the live path would have.
 */
export function submittedMetadata(
  job: SubmittedJobFacts,
  model: { provider: string; version: string } | null | undefined,
): Record<string, unknown> {
  return {
    ...jobMetadata(job),
    clientReference: job.clientReference,
    priority: job.priority,
    requiresSeniorSignOff: job.requiresSeniorSignOff,
    vulnerabilityFlags: job.vulnerabilityFlags,
    aiModel: model ? `${model.provider}/${model.version}` : null,
    documentUrl: job.documentUrl,
  };
}
