import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { completeJob } from '../../shared/routes/review.js';
import { presentJob } from '../../shared/services/review/job-views.js';
import { completeJob as complete } from '../../shared/services/review/completion.js';

export const handler = defineHandler(completeJob, async ({ deps, principal, params, body }) =>
  ok(presentJob(await complete(deps, principal, params.id, body))),
);
