import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as review from '../../shared/routes/review.js';
import { listReviewJobs } from '../../shared/services/review/job-views.js';

export const handler = defineHandler(review.listJobs, async ({ deps, principal, query }) =>
  ok(await listReviewJobs(deps, principal.firmId, query)),
);
