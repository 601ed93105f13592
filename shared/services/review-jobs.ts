import { createHash } from 'node:crypto';
import { actorOf, type Principal } from '../domain/auth/principal.js';
import { effectiveSettings } from '../domain/firm/settings.js';
import {
  declaredModel,
  documentCopyKey,
  documentUrl,
  requiresSeniorSignOff,
  slaDeadline,
  type JobPriority,
  type JobStatus,
  type VulnerabilityFlag,
} from '../domain/review/jobs.js';
import { MAX_UPLOAD_BYTES, uploadKeyFirm } from '../domain/review/uploads.js';
import {
  ConflictError,
  DocumentNotFoundError,
  ForbiddenError,
  ImpactAssessmentRequiredError,
  NotFoundError,
  PayloadTooLargeError,
  UnprocessableError,
  ValidationError,
} from '../errors.js';
import { isId, newId } from '../ids.js';
import { appendRecord } from '../ledger-writer/append.js';
import { isoNow } from '../ports/clock.js';
import type { StoredObject } from '../ports/object-store.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import { findApprovedAssessment } from '../store/impact-assessment-store.js';
import {
  getJob,
  isUploadUsed,
  jobPutItem,
  listJobs,
  uploadUsedPutItem,
  waitingPutItem,
  type ReviewJobItem,
  type StoredJob,
} from '../store/review-job-store.js';
import { anonymiseActions, type ReviewAction } from '../domain/review/workflow.js';
import { routeFirm } from './review-workflow.js';
import { findDocumentType } from './document-types.js';
import { loadFirm } from './firm.js';

/** Plans that include review services. */
const REVIEW_PLANS: readonly string[] = ['PRINCIPAL', 'BOTH'];

export interface SubmitJobInput {
  documentKey: string;
  documentType: string;
  clientReference: string;
  documentReference: string;
  factFindSummary: Record<string, unknown>;
  priority: JobPriority;
  aiContext?: Record<string, unknown> | null | undefined;
  vulnerabilityFlags: VulnerabilityFlag[];
  requiresSeniorSignOff?: boolean | undefined;
  clientSegments: Record<string, string>;
}

const sha256Hex = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

/**
 * Submits a review job from a completed upload. Checks, in order: plan (403), document type (400), the
 * impact-assessment gate (409 IMPACT_ASSESSMENT_REQUIRED), the key (the caller's firm's, not used before:
 * 404 DOCUMENT_NOT_FOUND / 409 CONFLICT), the object (404, 413, 422 on a read failure). Then the bytes are
 * hashed and copied to the immutable bucket, and the job, the key's single-use marker and the
 * DOCUMENT_SUBMITTED record commit in one transaction. Last, the upload is deleted (best effort).
 */
export async function submitJob(
  deps: Deps,
  principal: Principal,
  input: SubmitJobInput,
): Promise<ReviewJobItem> {
  const firm = await loadFirm(deps, principal.firmId);
  if (!REVIEW_PLANS.includes(firm.plan))
    throw new ForbiddenError(`The firm's plan (${firm.plan}) does not include review services`);

  if (!(await findDocumentType(deps, firm.id, input.documentType)))
    throw new ValidationError('Unknown document type', [
      { path: 'body.documentType', message: `The firm has no document type ${input.documentType}` },
    ]);

  const model = declaredModel(input.aiContext);
  if (model && effectiveSettings(firm.settings).enforceImpactAssessments) {
    if (!(await findApprovedAssessment(deps, firm.id, model.provider, model.version)))
      throw new ImpactAssessmentRequiredError(
        `No APPROVED impact assessment covers model ${model.provider} ${model.version}`,
      );
  }

  const notFound = () => new DocumentNotFoundError('documentKey does not name an uploaded document');
  if (uploadKeyFirm(input.documentKey) !== firm.id) throw notFound();
  const keyHash = sha256Hex(input.documentKey);
  if (await isUploadUsed(deps, firm.id, keyHash)) throw usedError();

  let object: StoredObject | null;
  try {
    object = await deps.objects.get('uploads', input.documentKey);
  } catch (error) {
    logger.warn('Reading an upload failed', { documentKey: input.documentKey, error: error as Error });
    throw new UnprocessableError('The document could not be read from storage; retry');
  }
  if (!object) throw notFound();
  if (object.body.byteLength > MAX_UPLOAD_BYTES)
    throw new PayloadTooLargeError(`The document exceeds ${MAX_UPLOAD_BYTES} bytes`);

  const jobId = newId('job');
  const documentHash = sha256Hex(object.body);
  const filename = input.documentKey.slice(input.documentKey.lastIndexOf('/') + 1);
  const copyKey = documentCopyKey(firm.id, jobId, filename);
  await deps.objects.put('immutable', copyKey, object.body, object.contentType);

  const submittedAt = isoNow(deps.clock);
  const vulnerabilityFlags = input.vulnerabilityFlags;
  const job: StoredJob = {
    id: jobId,
    firmId: firm.id,
    documentReference: input.documentReference,
    documentType: input.documentType,
    documentUrl: documentUrl(copyKey),
    documentHash,
    clientReference: input.clientReference,
    factFindSummary: input.factFindSummary,
    status: 'QUEUED',
    priority: input.priority,
    outcome: null,
    outcomeReason: null,
    modifications: null,
    assignedReviewerId: null,
    assignedAt: null,
    completedAt: null,
    submittedAt,
    slaDeadline: slaDeadline(submittedAt),
    aiContext: input.aiContext ?? null,
    vulnerabilityFlags,
    requiresSeniorSignOff: requiresSeniorSignOff(vulnerabilityFlags, input.requiresSeniorSignOff),
    clientSegments: input.clientSegments,
    ledgerRecordId: null,
    certificateId: null,
    annotationCount: 0,
    slaBreachedAt: null,
    submittedBy:
      principal.kind === 'user'
        ? { kind: 'user', id: principal.userId }
        : { kind: 'apiKey', id: principal.keyId },
    actionLog: [],
  };

  await appendRecord(
    deps,
    {
      firmId: firm.id,
      eventType: 'DOCUMENT_SUBMITTED',
      actor: actorOf(principal),
      documentHash,
      documentMetadata: {
        jobId,
        documentReference: job.documentReference,
        documentType: job.documentType,
        clientReference: job.clientReference,
        priority: job.priority,
        requiresSeniorSignOff: job.requiresSeniorSignOff,
        vulnerabilityFlags: job.vulnerabilityFlags,
        aiModel: model ? `${model.provider}/${model.version}` : null,
        documentUrl: job.documentUrl,
      },
      reviewJobId: jobId,
    },
    {
      with: [
        jobPutItem(deps, job),
        uploadUsedPutItem(deps, firm.id, keyHash, jobId, submittedAt),
        waitingPutItem(deps, 'queue', job),
      ],
      onConflict: (failedItem) =>
        failedItem === 1 ? usedError() : new Error(`Job ${jobId} already exists (id reuse)`),
    },
  );

  try {
    await deps.objects.delete('uploads', input.documentKey);
  } catch (error) {
    // The marker already refuses the key; the bucket's lifecycle rule removes the object later.
    logger.warn('Deleting a consumed upload failed', {
      documentKey: input.documentKey,
      error: error as Error,
    });
  }
  // Routing runs after the commit: the job is safely QUEUED whatever happens to the routing.
  try {
    await routeFirm(deps, firm.id);
  } catch (error) {
    logger.error('Routing after a submission failed; the job waits QUEUED', { jobId, error: error as Error });
  }
  return presentJob((await getJob(deps, firm.id, jobId)) ?? job);
}

function usedError(): ConflictError {
  return new ConflictError('A job was already submitted with this documentKey; upload the document again');
}

export interface JobListQuery {
  page: number;
  pageSize: number;
  status?: JobStatus | undefined;
}

/** A page of the firm's jobs, newest first (submittedAt, then id, descending). Reads every job: O(jobs). */
export async function listReviewJobs(deps: Deps, firmId: string, query: JobListQuery) {
  const jobs = (await listJobs(deps, firmId))
    .filter((job) => query.status === undefined || job.status === query.status)
    .sort((a, b) =>
      a.submittedAt === b.submittedAt ? b.id.localeCompare(a.id) : b.submittedAt.localeCompare(a.submittedAt),
    );
  const total = jobs.length;
  const start = (query.page - 1) * query.pageSize;
  return {
    data: jobs.slice(start, start + query.pageSize).map(presentJob),
    pagination: {
      page: query.page,
      pageSize: query.pageSize,
      total,
      totalPages: Math.ceil(total / query.pageSize),
    },
  };
}

/**
 * A job as the interface shows it: exactly the Review job fields plus annotationCount and slaBreachedAt,
 * never the workflow's internals (submitter, action log with user ids, pending decision, index attributes).
 */
export function presentJob(job: StoredJob): ReviewJobItem {
  return {
    id: job.id,
    firmId: job.firmId,
    documentReference: job.documentReference,
    documentType: job.documentType,
    documentUrl: job.documentUrl,
    documentHash: job.documentHash,
    clientReference: job.clientReference,
    factFindSummary: job.factFindSummary,
    status: job.status,
    priority: job.priority,
    outcome: job.outcome,
    outcomeReason: job.outcomeReason,
    modifications: job.modifications,
    assignedReviewerId: job.assignedReviewerId,
    assignedAt: job.assignedAt,
    completedAt: job.completedAt,
    submittedAt: job.submittedAt,
    slaDeadline: job.slaDeadline,
    aiContext: job.aiContext,
    vulnerabilityFlags: job.vulnerabilityFlags,
    requiresSeniorSignOff: job.requiresSeniorSignOff,
    clientSegments: job.clientSegments,
    ledgerRecordId: job.ledgerRecordId,
    certificateId: job.certificateId,
    annotationCount: job.annotationCount ?? 0,
    slaBreachedAt: job.slaBreachedAt ?? null,
  };
}

/**
 * One of the firm's jobs with its anonymised review actions (oldest first; reviewers as "Reviewer 1",
 * "Reviewer 2" in order of appearance within the job); 404 for an unknown id or another firm's job.
 */
export async function getReviewJob(
  deps: Deps,
  firmId: string,
  jobId: string,
): Promise<ReviewJobItem & { reviewActions: ReviewAction[] }> {
  const job = isId('job', jobId) ? await getJob(deps, firmId, jobId) : null;
  if (!job) throw new NotFoundError('Review job not found');
  return { ...presentJob(job), reviewActions: anonymiseActions(job.actionLog ?? []) };
}
