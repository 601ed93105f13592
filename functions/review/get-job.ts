import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as review from '../../shared/routes/review.js';
import { getReviewJob } from '../../shared/services/review/job-views.js';

export const handler = defineHandler(review.getJob, async ({ deps, principal, params }) =>
  ok(await getReviewJob(deps, principal.firmId, params.id)),
);
