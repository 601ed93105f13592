import { defineHandler, ok } from '../../shared/http/handler.js';
import { completeJob } from '../../shared/routes/review.js';
import { presentJob } from '../../shared/services/review/job-views.js';
import { completeJob as complete } from '../../shared/services/review/completion.js';

export const handler = defineHandler(completeJob, async ({ deps, principal, params, body }) =>
  ok(presentJob(await complete(deps, principal, params.id, body))),
);
