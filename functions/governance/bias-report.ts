import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { biasReport } from '../../shared/routes/governance-reports.js';
import { biasReport as report } from '../../shared/services/governance-reports.js';

export const handler = defineHandler(biasReport, async ({ deps, principal, query }) =>
  ok(await report(deps, principal.firmId, query)),
);
