import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as governanceReports from '../../shared/routes/governance-reports.js';
import { modelSummaries } from '../../shared/services/governance-reports.js';

export const handler = defineHandler(governanceReports.listModels, async ({ deps, principal }) =>
  ok(await modelSummaries(deps, principal.firmId)),
);
