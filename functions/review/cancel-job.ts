import { defineHandler, ok } from '../../shared/http/handler.js';
import { cancelJob } from '../../shared/routes/review.js';
import { presentJob } from '../../shared/services/review-jobs.js';
import { cancelJob as cancel } from '../../shared/services/review-workflow.js';

export const handler = defineHandler(cancelJob, async ({ deps, principal, params }) =>
  ok(presentJob(await cancel(deps, principal, params.id))),
);
