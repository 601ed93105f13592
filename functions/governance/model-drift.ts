import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as governanceReports from '../../shared/routes/governance-reports.js';
import { modelDrift } from '../../shared/services/governance-reports.js';

export const handler = defineHandler(governanceReports.modelDrift, async ({ deps, principal, query }) =>
  ok(await modelDrift(deps, principal.firmId, query.baselineDays, query.currentDays)),
);
