import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as governanceReports from '../../shared/routes/governance-reports.js';
import { explainJob } from '../../shared/services/governance-reports.js';

export const handler = defineHandler(governanceReports.explainJob, async ({ deps, principal, params }) =>
  ok(await explainJob(deps, principal.firmId, params.jobId)),
);
