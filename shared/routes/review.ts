import { IdParam } from '../schemas/common.js';
import {
  CreateUploadBody,
  ListJobsQuery,
  ReviewJob,
  ReviewJobDetail,
  ReviewJobPage,
  SubmitJobBody,
  Upload,
} from '../schemas/review.js';
import { ANY_CREDENTIAL, route } from './route.js';

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
    "Step one of a submission. PUT the raw bytes to uploadUrl with a Content-Type header equal to contentType, once, within 15 minutes; at most 25 MiB (maxBytes). Then submit the job with documentKey. The key is namespaced under the caller's firm and ends with the sanitised filename. The firm's plan must include review services (PRINCIPAL or BOTH), otherwise 403.",
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
    "Step two of a submission. The service reads the upload named by documentKey, hashes it (sha256: documentHash), copies it into the immutable ledger bucket (documentUrl) and commits the job (status QUEUED, slaDeadline submittedAt + 48 h) with its DOCUMENT_SUBMITTED ledger record; the upload is then consumed. Any vulnerability flag forces requiresSeniorSignOff. 403 when the firm's plan has no review services; 400 for an unknown document type; 409 IMPACT_ASSESSMENT_REQUIRED when enforceImpactAssessments is on, aiContext.model is given and no APPROVED impact assessment matches its provider and version; 404 DOCUMENT_NOT_FOUND when documentKey is not an uploaded document of the firm; 409 CONFLICT when a job was already submitted with documentKey; 413 above 25 MiB; 422 when the document cannot be read.",
  request: { body: SubmitJobBody },
  responses: { 201: { description: 'The queued job', schema: ReviewJob } },
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
