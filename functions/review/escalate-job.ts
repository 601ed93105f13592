import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as review from '../../shared/routes/review.js';
import { presentJob } from '../../shared/services/review/job-views.js';
import { escalateJob } from '../../shared/services/review/reviewer-moves.js';

export const handler = defineHandler(review.escalateJob, async ({ deps, principal, params, body }) =>
  ok(presentJob(await escalateJob(deps, principal, params.id, body.reason))),
);
