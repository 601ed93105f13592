import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as review from '../../shared/routes/review.js';
import { jobDocumentLink } from '../../shared/services/review/document-link.js';

export const handler = defineHandler(review.getJobDocument, async ({ deps, principal, params }) =>
  ok(await jobDocumentLink(deps, principal, params.id)),
);
