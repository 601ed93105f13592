import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { cancelJob } from '../../shared/routes/review.js';
import { presentJob } from '../../shared/services/review/job-views.js';
import { cancelJob as cancel } from '../../shared/services/review/reviewer-moves.js';

export const handler = defineHandler(cancelJob, async ({ deps, principal, params }) =>
  ok(presentJob(await cancel(deps, principal, params.id))),
);
