import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { createUpload } from '../../shared/routes/review.js';
import { createUpload as presignUpload } from '../../shared/services/uploads.js';

export const handler = defineHandler(createUpload, async ({ deps, principal, body }) =>
  ok(await presignUpload(deps, principal, body)),
);
