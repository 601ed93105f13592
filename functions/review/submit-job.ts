import { defineHandler } from '../../shared/http/handler.js';
import { created } from '../../shared/http/response.js';
import * as review from '../../shared/routes/review.js';
import { submitJob } from '../../shared/services/review/submission.js';

export const handler = defineHandler(review.submitJob, async ({ deps, principal, body }) =>
  created(await submitJob(deps, principal, body)),
);
