import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { startJob } from '../../shared/routes/review.js';
import { presentJob } from '../../shared/services/review/job-views.js';
import { startJob as start } from '../../shared/services/review/reviewer-moves.js';

export const handler = defineHandler(startJob, async ({ deps, principal, params }) =>
  ok(presentJob(await start(deps, principal, params.id))),
);
