import { IdParam } from '../schemas/common.js';
import {
  Availability,
  AvailabilityBody,
  CompleteJobBody,
  CreateUploadBody,
  DocumentLink,
  EscalateJobBody,
  ReviewQueuePage,
  ReviewQueueQuery,
  ListJobsQuery,
  ReviewJob,
  ReviewJobDetail,
  ReviewJobPage,
  SubmitJobBody,
  Upload,
} from '../schemas/review.js';
import { ANY_CREDENTIAL, route } from './route.js';

const REVIEWERS = { kind: 'authenticated', credentials: 'user' } as const;
/** Every reviewer move may route waiting jobs afterwards (main table) and writes a ledger record. */
const MOVE_PERMISSIONS = { main: 'write', ledger: 'append', immutable: 'write', sign: true } as const;

export const createUpload = route({
  operationId: 'createUpload',
  method: 'POST',
  path: '/v1/review/uploads',
  handler: 'functions/review/create-upload',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', uploads: 'presign' },
  tag: 'Review',
  summary: 'Get a presigned URL to upload a document for review',
  description:
    "Step one of a submission. PUT the raw bytes to uploadUrl with the headers of uploadHeaders (Content-Type equal to contentType, and If-None-Match: * which makes the URL single-use: a second PUT is 412), once, within 15 minutes; at most 25 MiB (maxBytes). Then submit the job with documentKey. The key is namespaced under the caller's firm and ends with the sanitised filename. The firm's plan must include review services (PRINCIPAL or BOTH), otherwise 403.",
  request: { body: CreateUploadBody },
  responses: { 200: { description: 'The presigned upload URL and the document key', schema: Upload } },
});

export const submitJob = route({
  operationId: 'submitReviewJob',
  method: 'POST',
  path: '/v1/review/jobs',
  handler: 'functions/review/submit-job',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'write', ledger: 'append', immutable: 'write', sign: true, uploads: 'write' },
  tag: 'Review',
  summary: 'Submit an uploaded document for human review',
  description:
    "Step two of a submission. The service reads the upload named by documentKey, hashes it (sha256: documentHash), copies it into the immutable ledger bucket (documentUrl) and commits the job (status QUEUED, slaDeadline submittedAt + 48 h) with its DOCUMENT_SUBMITTED ledger record; the upload is then consumed. Any vulnerability flag forces requiresSeniorSignOff. 403 when the firm's plan has no review services; 400 for an unknown document type; 409 IMPACT_ASSESSMENT_REQUIRED when enforceImpactAssessments is on, aiContext.model is given and no APPROVED impact assessment matches its provider and version; 404 DOCUMENT_NOT_FOUND when documentKey is not an uploaded document of the firm; 409 CONFLICT when a job was already submitted with documentKey (or, after a failed attempt, the upload's bytes changed); a failed attempt may be repeated with the same documentKey: it reuses the one immutable copy (the job id derives from the upload). 413 above 25 MiB; 422 when the document cannot be read. Routing never gives the job to the user who submitted it (four eyes): with nobody else free it waits QUEUED.",
  request: { body: SubmitJobBody },
  responses: {
    201: { description: 'The queued job', schema: ReviewJob },
    404: { description: 'DOCUMENT_NOT_FOUND: documentKey is not an uploaded document of the firm' },
    413: { description: 'PAYLOAD_TOO_LARGE: the request body is over 256 KiB, or the document over 25 MiB' },
    422: { description: 'UNPROCESSABLE: the document could not be read from storage; retry' },
  },
});

export const listJobs = route({
  operationId: 'listReviewJobs',
  method: 'GET',
  path: '/v1/review/jobs',
  handler: 'functions/review/list-jobs',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Review',
  summary: "List the firm's review jobs",
  description: 'Newest first (submittedAt). status filters on the job status.',
  request: { query: ListJobsQuery },
  responses: { 200: { description: 'A page of jobs', schema: ReviewJobPage } },
});

export const getJob = route({
  operationId: 'getReviewJob',
  method: 'GET',
  path: '/v1/review/jobs/{id}',
  handler: 'functions/review/get-job',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Review',
  summary: 'A review job with its anonymised review actions',
  description: "404 for an unknown id or another firm's job.",
  request: { params: IdParam },
  responses: { 200: { description: 'The job', schema: ReviewJobDetail } },
});

export const reviewQueue = route({
  operationId: 'getReviewQueue',
  method: 'GET',
  path: '/v1/review/queue',
  handler: 'functions/review/get-queue',
  auth: REVIEWERS,
  permissions: { main: 'write' },
  tag: 'Review',
  summary: "The calling reviewer's queue",
  description:
    'Signed-in users only (403 for an API key). The job assigned to the caller (ASSIGNED or IN_REVIEW) first, then, for a LEAD_REVIEWER or FIRM_ADMIN, the ESCALATED jobs they may start (not those they submitted), URGENT first then oldest. Routing runs first, so a reviewer who has just signed in or become free is given waiting work here.',
  request: { query: ReviewQueueQuery },
  responses: { 200: { description: 'A page of jobs', schema: ReviewQueuePage } },
});

export const startJob = route({
  operationId: 'startReviewJob',
  method: 'POST',
  path: '/v1/review/jobs/{id}/start',
  handler: 'functions/review/start-job',
  auth: REVIEWERS,
  permissions: MOVE_PERMISSIONS,
  tag: 'Review',
  summary: 'Start reviewing a job (REVIEW_STARTED)',
  description:
    'ASSIGNED -> IN_REVIEW by the assigned reviewer, or ESCALATED -> IN_REVIEW by a LEAD_REVIEWER or FIRM_ADMIN without an active job (the job becomes theirs). Writes REVIEW_STARTED. 403 when the job is not yours (or an escalated job and you are not senior); 403 SUBMITTER_CANNOT_REVIEW when you submitted the job (four eyes: a job is never reviewed by its submitter). 409 for any other status, or when you already have an active job; 404 for an unknown job.',
  request: { params: IdParam },
  responses: { 200: { description: 'The job, IN_REVIEW', schema: ReviewJob } },
});

export const completeJob = route({
  operationId: 'completeReviewJob',
  method: 'POST',
  path: '/v1/review/jobs/{id}/complete',
  handler: 'functions/review/complete-job',
  auth: REVIEWERS,
  permissions: MOVE_PERMISSIONS,
  tag: 'Review',
  summary: 'Decide a job (REVIEW_COMPLETED, then DOCUMENT_APPROVED / MODIFIED / REJECTED)',
  description:
    "IN_REVIEW -> APPROVED, MODIFIED or REJECTED by the assigned reviewer; a job requiring senior sign-off only by a LEAD_REVIEWER or FIRM_ADMIN (403: escalate it); 403 SUBMITTER_CANNOT_REVIEW when you submitted the job (four eyes: a job is never reviewed by its submitter). Writes REVIEW_COMPLETED, then the outcome record; ledgerRecordId is the outcome record's id. Frees the reviewer and routes the next job. 400 for a missing modifications (APPROVED_WITH_MODIFICATIONS) or reason (REJECTED), or a checklist that does not answer the document type's items exactly once; 409 when the job is not IN_REVIEW or already decided. Repeating the same decision after a failure finishes it.",
  request: { params: IdParam, body: CompleteJobBody },
  responses: { 200: { description: 'The completed job', schema: ReviewJob } },
});

export const escalateJob = route({
  operationId: 'escalateReviewJob',
  method: 'POST',
  path: '/v1/review/jobs/{id}/escalate',
  handler: 'functions/review/escalate-job',
  auth: REVIEWERS,
  permissions: MOVE_PERMISSIONS,
  tag: 'Review',
  summary: 'Escalate a job to senior sign-off (JOB_ESCALATED)',
  description:
    'ASSIGNED or IN_REVIEW -> ESCALATED by the assigned reviewer: the job leaves them (they are free for the next one) and waits in the escalation queue that LEAD_REVIEWERs and FIRM_ADMINs see. 403 when the job is not yours; 403 SUBMITTER_CANNOT_REVIEW when you submitted the job (four eyes: a job is never reviewed by its submitter). 409 in any other status.',
  request: { params: IdParam, body: EscalateJobBody },
  responses: { 200: { description: 'The job, ESCALATED', schema: ReviewJob } },
});

export const cancelJob = route({
  operationId: 'cancelReviewJob',
  method: 'POST',
  path: '/v1/review/jobs/{id}/cancel',
  handler: 'functions/review/cancel-job',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'write' },
  tag: 'Review',
  summary: 'Cancel a job that is not decided',
  description:
    'QUEUED, ASSIGNED, IN_REVIEW or ESCALATED -> CANCELLED, by a firm API key or the user who submitted the job (403 for another user); frees the reviewer. 409 once decided or cancelled. No ledger event (the event set has none for cancellation).',
  request: { params: IdParam },
  responses: { 200: { description: 'The job, CANCELLED', schema: ReviewJob } },
});

export const setAvailability = route({
  operationId: 'setReviewerAvailability',
  method: 'POST',
  path: '/v1/review/availability',
  handler: 'functions/review/set-availability',
  auth: REVIEWERS,
  permissions: { main: 'write' },
  tag: 'Review',
  summary: "Set the calling reviewer's availability for routing",
  description:
    'Signed-in users only. isAvailable false stops new assignments (a job already held stays theirs); true makes the caller eligible again and routes waiting work to them at once.',
  request: { body: AvailabilityBody },
  responses: { 200: { description: "The caller's availability and active job", schema: Availability } },
});

/** The document itself, for reading it in the console (issue 16). */
export const getJobDocument = route({
  operationId: 'getReviewJobDocument',
  method: 'GET',
  path: '/v1/review/jobs/{id}/document',
  handler: 'functions/review/get-job-document',
  auth: REVIEWERS,
  permissions: { main: 'read', immutable: 'read' },
  tag: 'Review',
  summary: "A short-lived URL of the job's document",
  description:
    "A presigned GET URL of the job's immutable document copy (the bytes documentHash was computed over), valid for 5 minutes. Only for the job's assigned reviewer, LEAD_REVIEWER and FIRM_ADMIN users: another reviewer of the firm is 403, an API key 403, an unknown id or another firm's job 404.",
  request: { params: IdParam },
  responses: { 200: { description: 'The document URL', schema: DocumentLink } },
});
