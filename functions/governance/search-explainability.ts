import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as governanceReports from '../../shared/routes/governance-reports.js';
import { searchExplainability } from '../../shared/services/governance-reports.js';

export const handler = defineHandler(
  governanceReports.searchExplainability,
  async ({ deps, principal, query }) =>
    ok(await searchExplainability(deps, principal.firmId, query.clientReference)),
);
