import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { explainJob } from '../../shared/routes/governance-reports.js';
import { explainJob as explain } from '../../shared/services/governance-reports.js';

export const handler = defineHandler(explainJob, async ({ deps, principal, params }) =>
  ok(await explain(deps, principal.firmId, params.jobId)),
);
