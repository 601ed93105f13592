import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { modelDrift } from '../../shared/routes/governance-reports.js';
import { modelDrift as driftReport } from '../../shared/services/governance-reports.js';

export const handler = defineHandler(modelDrift, async ({ deps, principal, query }) =>
  ok(await driftReport(deps, principal.firmId, query.baselineDays, query.currentDays)),
);
