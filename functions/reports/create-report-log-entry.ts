import { defineHandler } from '../../shared/http/handler.js';
import { created } from '../../shared/http/response.js';
import * as reportLog from '../../shared/routes/report-log.js';
import { logReport } from '../../shared/services/report-log.js';

export const handler = defineHandler(reportLog.createReportLogEntry, async ({ deps, principal, body }) =>
  created(await logReport(deps, principal, body)),
);
