import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { consumerDutyReport } from '../../shared/routes/governance-reports.js';
import { consumerDutyReport as report } from '../../shared/services/governance-reports.js';

export const handler = defineHandler(consumerDutyReport, async ({ deps, principal, query }) =>
  ok(await report(deps, principal.firmId, query)),
);
