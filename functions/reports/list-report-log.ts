import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { listReportLog } from '../../shared/routes/report-log.js';
import { firmReportLog } from '../../shared/services/report-log.js';

export const handler = defineHandler(listReportLog, async ({ deps, principal, query }) =>
  ok(await firmReportLog(deps, principal.firmId, query.type)),
);
