import { defineHandler } from '../../shared/http/handler.js';
import { created } from '../../shared/http/response.js';
import { submitJob } from '../../shared/routes/review.js';
import { submitJob as submit } from '../../shared/services/review/submission.js';

export const handler = defineHandler(submitJob, async ({ deps, principal, body }) =>
  created(await submit(deps, principal, body)),
);
