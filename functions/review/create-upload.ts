import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as review from '../../shared/routes/review.js';
import { createUpload } from '../../shared/services/uploads.js';

export const handler = defineHandler(review.createUpload, async ({ deps, principal, body }) =>
  ok(await createUpload(deps, principal, body)),
);
