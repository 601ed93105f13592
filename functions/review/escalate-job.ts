import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { escalateJob } from '../../shared/routes/review.js';
import { presentJob } from '../../shared/services/review/job-views.js';
import { escalateJob as escalate } from '../../shared/services/review/reviewer-moves.js';

export const handler = defineHandler(escalateJob, async ({ deps, principal, params, body }) =>
  ok(presentJob(await escalate(deps, principal, params.id, body.reason))),
);
