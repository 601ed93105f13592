import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as review from '../../shared/routes/review.js';
import { presentJob } from '../../shared/services/review/job-views.js';
import { completeJob } from '../../shared/services/review/completion.js';

export const handler = defineHandler(review.completeJob, async ({ deps, principal, params, body }) =>
  ok(presentJob(await completeJob(deps, principal, params.id, body))),
);
