import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as review from '../../shared/routes/review.js';
import { presentJob } from '../../shared/services/review/job-views.js';
import { cancelJob } from '../../shared/services/review/reviewer-moves.js';

export const handler = defineHandler(review.cancelJob, async ({ deps, principal, params }) =>
  ok(presentJob(await cancelJob(deps, principal, params.id))),
);
