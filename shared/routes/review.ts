import { CreateUploadBody, Upload } from '../schemas/review.js';
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
