/** Submitting a review job: from a completed upload to a QUEUED job with its DOCUMENT_SUBMITTED record. */
import { includesReview } from '../../domain/firm/plans.js';
import { createHash } from 'node:crypto';
import { actorOf, type Principal } from '../../domain/auth/principal.js';
import { effectiveSettings } from '../../domain/firm/settings.js';
import {
  declaredModel,
  documentCopyKey,
  documentUrl,
  jobIdOfUpload,
  requiresSeniorSignOff,
  slaDeadline,
  submittedMetadata,
  type JobPriority,
  type VulnerabilityFlag,
} from '../../domain/review/jobs.js';
import { MAX_UPLOAD_BYTES, parseUploadKey } from '../../domain/review/uploads.js';
import {
  ConflictError,
  DocumentNotFoundError,
  ForbiddenError,
  ImpactAssessmentRequiredError,
  ValidationError,
} from '../../errors.js';
import { appendRecord } from '../../ledger-writer/append.js';
import { isoNow } from '../../ports/clock.js';
import { ImmutableObjectError, type StoredObject } from '../../ports/object-store.js';
import type { Deps } from '../../runtime/deps.js';
import { logger } from '../../runtime/logger.js';
import { findApprovedAssessment } from '../../store/impact-assessment-store.js';
import {
  getJob,
  isUploadUsed,
  jobPutItem,
  uploadUsedPutItem,
  type ReviewJobItem,
  type StoredJob,
} from '../../store/review-job-store.js';
import { waitingPutItem } from '../../store/review-queue-store.js';
import { jobCounterItems } from '../../store/counter-store.js';
import { jobMarkerPutItems } from '../../store/job-marker-store.js';
import { findDocumentType } from '../document-types.js';
import { loadFirm } from '../firm.js';
import { presentJob } from './job-views.js';
import { readUpload } from './upload-read.js';
import { routeFirm } from './routing.js';

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
 * 404 DOCUMENT_NOT_FOUND / 409 CONFLICT), the object (404, 413, 422 on a read failure): every check comes
 * before the first write. Then the bytes are hashed and copied to the immutable bucket, and the job, the
 * key's single-use marker and the DOCUMENT_SUBMITTED record commit in one transaction. Last, the upload is
 * deleted (best effort).
 *
 * The copy is written before the commit (the record names it, so it must exist once the record does), under
 * a key that is a function of the upload: the job id is the upload's (jobIdOfUpload). A commit that fails
 * leaves the upload unconsumed and its copy in place; submitting the upload again rewrites the same key with
 * the same bytes (the immutable store treats that as done) and commits, so failed attempts never accumulate
 * copies, and of concurrent submissions of one upload the winner's record names the one copy they all wrote.
 */
export async function submitJob(
  deps: Deps,
  principal: Principal,
  input: SubmitJobInput,
): Promise<ReviewJobItem> {
  const firm = await loadFirm(deps, principal.firmId);
  if (!includesReview(firm.plan))
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
  const upload = parseUploadKey(input.documentKey);
  if (upload?.firmId !== firm.id) throw notFound();
  const keyHash = sha256Hex(input.documentKey);
  if (await isUploadUsed(deps, firm.id, keyHash)) throw usedError();

  const object = await readUpload(deps, input.documentKey, MAX_UPLOAD_BYTES);

  const jobId = jobIdOfUpload(upload.uploadId);
  const documentHash = object.sha256;
  const copyKey = documentCopyKey(firm.id, jobId, upload.filename);
  await copyToImmutable(deps, copyKey, object);

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
      documentMetadata: submittedMetadata(job, model),
      reviewJobId: jobId,
    },
    {
      with: [
        jobPutItem(deps, job),
        uploadUsedPutItem(deps, firm.id, keyHash, jobId, submittedAt),
        waitingPutItem(deps, 'queue', job),
        // Counters and markers of the model registry and vulnerability report (issue 14), with the job.
        ...jobCounterItems(deps, firm.id, jobId, null, job),
        ...jobMarkerPutItems(deps, job),
      ],
      // The job (its id is the upload's) or the upload's marker exists: the upload was submitted already.
      onConflict: () => usedError(),
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

/**
 * Writes the document's immutable copy. The key already holding other bytes means an earlier attempt with
 * this upload failed and the upload was overwritten since (an S3 presigned PUT is not single-use): the copy
 * that attempt wrote cannot change, so this upload cannot be submitted; a new upload can.
 */
async function copyToImmutable(deps: Deps, copyKey: string, object: StoredObject): Promise<void> {
  try {
    await deps.objects.put('immutable', copyKey, object.body, object.contentType);
  } catch (error) {
    if (!(error instanceof ImmutableObjectError)) throw error;
    throw new ConflictError(
      'The upload changed since an earlier submission attempt copied it; upload the document again',
    );
  }
}

function usedError(): ConflictError {
  return new ConflictError('A job was already submitted with this documentKey; upload the document again');
}
