import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as governanceReports from '../../shared/routes/governance-reports.js';
import { biasReport } from '../../shared/services/governance-reports.js';

export const handler = defineHandler(governanceReports.biasReport, async ({ deps, principal, query }) =>
  ok(await biasReport(deps, principal.firmId, query)),
);
