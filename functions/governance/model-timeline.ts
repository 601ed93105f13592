import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as governanceReports from '../../shared/routes/governance-reports.js';
import { modelTimeline } from '../../shared/services/governance-reports.js';

export const handler = defineHandler(
  governanceReports.modelTimeline,
  async ({ deps, principal, params, query }) =>
    ok(await modelTimeline(deps, principal.firmId, params.provider, params.version, query)),
);
