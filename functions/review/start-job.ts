import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as review from '../../shared/routes/review.js';
import { presentJob } from '../../shared/services/review/job-views.js';
import { startJob } from '../../shared/services/review/reviewer-moves.js';

export const handler = defineHandler(review.startJob, async ({ deps, principal, params }) =>
  ok(presentJob(await startJob(deps, principal, params.id))),
);
