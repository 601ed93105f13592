import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as reportLog from '../../shared/routes/report-log.js';
import { firmReportLog } from '../../shared/services/report-log.js';

export const handler = defineHandler(reportLog.listReportLog, async ({ deps, principal, query }) =>
  ok(await firmReportLog(deps, principal.firmId, query.type)),
);
