import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as governanceReports from '../../shared/routes/governance-reports.js';
import { consumerDutyReport } from '../../shared/services/governance-reports.js';

export const handler = defineHandler(
  governanceReports.consumerDutyReport,
  async ({ deps, principal, query }) => ok(await consumerDutyReport(deps, principal.firmId, query)),
);
